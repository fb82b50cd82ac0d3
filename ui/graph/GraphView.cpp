#include "graph/GraphView.h"

#include "graph/GraphMinimap.h"
#include "graph/GraphScene.h"
#include "graph/NodeItem.h"

#include <QKeyEvent>
#include <QMimeData>
#include <QScrollBar>
#include <QWheelEvent>

namespace clab::ui {

GraphView::GraphView(GraphScene* scene, QWidget* parent) : QGraphicsView(scene, parent), scene_(scene) {
  setRenderHint(QPainter::Antialiasing);
  setRenderHint(QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::RubberBandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setAcceptDrops(true);
  setFocusPolicy(Qt::StrongFocus);
  // Fixed scroll bars keep the viewport's size, so a fit stays centred.
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
  minimap_ = new GraphMinimap(this, this);
  connect(scene_, &GraphScene::rebuilt, minimap_, &GraphMinimap::refit);
  placeMinimap();
}

void GraphView::placeMinimap() {
  const QSize area = viewport()->size();
  const QSize size(std::clamp(area.width() / 5, 120, 220), std::clamp(area.height() / 4, 80, 150));
  minimap_->setGeometry(area.width() - size.width() - 8, area.height() - size.height() - 8, size.width(),
                        size.height());
  minimap_->setVisible(area.width() > 400 && area.height() > 250);
}

void GraphView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  placeMinimap();
}

void GraphView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  minimap_->viewport()->update();
}

void GraphView::setZoom(double zoom) {
  const double clamped = std::clamp(zoom, 0.05, 4.0);
  setTransform(QTransform::fromScale(clamped, clamped));
  minimap_->viewport()->update();
}

void GraphView::fitAll() {
  const QRectF nodes = scene_->nodesRect();
  if (nodes.isEmpty() || viewport()->width() < 10) return;
  const QRectF target = nodes.adjusted(-30, -30, 30, 30);
  const double scale = std::min({1.0, viewport()->width() / target.width(), viewport()->height() / target.height()});
  setZoom(scale);
  centerOn(target.center());
}

bool GraphView::showNode(const QString& node) {
  scene_->reveal(node);  // a node inside a collapsed scope: open it
  NodeItem* item = scene_->item(node);
  if (item == nullptr) return false;
  scene_->selectNode(node);
  if (zoom() < 0.6) setZoom(0.8);
  centerOn(item);
  return true;
}

bool GraphView::event(QEvent* event) {
  // Delete belongs to the canvas while it has the focus, not to the window's actions.
  if (event->type() == QEvent::ShortcutOverride) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_Delete || key->key() == Qt::Key_Backspace) {
      event->accept();
      return true;
    }
  }
  return QGraphicsView::event(event);
}

void GraphView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  const double factor = std::pow(1.15, steps);
  const double next = std::clamp(zoom() * factor, 0.05, 4.0);
  scale(next / zoom(), next / zoom());
  event->accept();
}

void GraphView::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Delete || event->key() == Qt::Key_Backspace) {
    scene_->deleteSelection();
    event->accept();
    return;
  }
  if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
    space_held_ = true;
    viewport()->setCursor(Qt::OpenHandCursor);
  }
  QGraphicsView::keyPressEvent(event);
}

void GraphView::keyReleaseEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
    space_held_ = false;
    viewport()->unsetCursor();
  }
  QGraphicsView::keyReleaseEvent(event);
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::MiddleButton || (event->button() == Qt::LeftButton && space_held_)) {
    panning_ = true;
    pan_from_ = event->position().toPoint();
    viewport()->setCursor(Qt::ClosedHandCursor);
    event->accept();
    return;
  }
  QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseMoveEvent(QMouseEvent* event) {
  if (panning_) {
    const QPoint delta = event->position().toPoint() - pan_from_;
    pan_from_ = event->position().toPoint();
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
    verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
    event->accept();
    return;
  }
  QGraphicsView::mouseMoveEvent(event);
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
  if (panning_) {
    panning_ = false;
    if (space_held_) viewport()->setCursor(Qt::OpenHandCursor);
    else viewport()->unsetCursor();
    event->accept();
    return;
  }
  QGraphicsView::mouseReleaseEvent(event);
}

void GraphView::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasFormat(kOpMimeType)) event->acceptProposedAction();
  else QGraphicsView::dragEnterEvent(event);
}

void GraphView::dragMoveEvent(QDragMoveEvent* event) {
  if (event->mimeData()->hasFormat(kOpMimeType)) event->acceptProposedAction();
  else QGraphicsView::dragMoveEvent(event);
}

void GraphView::dropEvent(QDropEvent* event) {
  if (!event->mimeData()->hasFormat(kOpMimeType)) {
    QGraphicsView::dropEvent(event);
    return;
  }
  const QString op = QString::fromUtf8(event->mimeData()->data(kOpMimeType));
  QString error;
  if (scene_->addNodeAt(op, mapToScene(event->position().toPoint()), &error).isEmpty())
    emit scene_->message(tr("Cannot add the node: %1").arg(error));
  event->acceptProposedAction();
}

}  // namespace clab::ui
