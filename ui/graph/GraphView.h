// The view of the graph canvas: the wheel zooms around the pointer, the middle button (or
// the left button on empty space with Space held) pans, Delete removes the selection, ops
// dragged from the palette drop where they are let go. While the graph is larger than the
// canvas, a minimap shows the whole of it in a corner where it covers no node.
#pragma once

#include <QGraphicsView>
#include <QTimer>

namespace clab::ui {

class GraphMinimap;
class GraphScene;

class GraphView : public QGraphicsView {
  Q_OBJECT

 public:
  // The MIME type of an op name dragged from the palette.
  static constexpr const char* kOpMimeType = "application/x-clusterlab-op";

  explicit GraphView(GraphScene* scene, QWidget* parent = nullptr);

  GraphScene* graphScene() const { return scene_; }
  GraphMinimap* minimap() const { return minimap_; }
  // Shows every node, never larger than life.
  void fitAll();
  // Selects `node`, zooms to life size (or as close as it fits) and centres it; false when
  // there is no such node.
  bool showNode(const QString& node);
  double zoom() const { return transform().m11(); }
  void setZoom(double zoom);

 protected:
  bool event(QEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void keyReleaseEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dragMoveEvent(QDragMoveEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;

 private:
  void placeMinimap();

  GraphScene* scene_;
  GraphMinimap* minimap_;
  bool panning_ = false;
  bool space_held_ = false;
  QPoint pan_from_;
  QTimer replace_minimap_;
};

}  // namespace clab::ui
