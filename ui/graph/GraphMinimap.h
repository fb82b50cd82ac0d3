// The whole graph in small, in the corner of the canvas, with the part the canvas shows
// outlined; click or drag in it to move the canvas there.
#pragma once

#include <QGraphicsView>

namespace clab::ui {

class GraphMinimap : public QGraphicsView {
  Q_OBJECT

 public:
  // Shows `main`'s scene and follows `main`'s visible area.
  explicit GraphMinimap(QGraphicsView* main, QWidget* parent = nullptr);

  // Fits the nodes again (after the graph changed).
  void refit();

 protected:
  void drawForeground(QPainter* painter, const QRectF& rect) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  QGraphicsView* main_;
};

}  // namespace clab::ui
