// The whole graph in small, in the corner of the canvas, with the part the canvas shows
// outlined; click or drag in it to move the canvas there. The graph is drawn once into a
// picture (again after it changes), so following the canvas costs one picture, not every
// node again.
#pragma once

#include <QGraphicsView>
#include <QPixmap>
#include <QPointer>
#include <QTimer>

namespace clab::ui {

class GraphMinimap : public QGraphicsView {
  Q_OBJECT

 public:
  // Shows `main`'s scene and follows `main`'s visible area.
  explicit GraphMinimap(QGraphicsView* main, QWidget* parent = nullptr);

  // Fits the nodes again (after the graph changed).
  void refit();

 protected:
  void drawBackground(QPainter* painter, const QRectF& rect) override;
  void drawForeground(QPainter* painter, const QRectF& rect) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  QGraphicsView* main_;
  QPointer<QGraphicsScene> graph_;  // main's scene; this view shows an empty one of the same extent
  QRectF nodes_;
  QPixmap picture_;
  bool stale_ = true;
  QTimer redraw_;
};

}  // namespace clab::ui
