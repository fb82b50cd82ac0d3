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
  // Items paint only inside their bounding rects (NodeItem and EdgeItem keep to them), so the
  // view need not widen each exposed rect nor save the painter's state around each item.
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setOptimizationFlags(QGraphicsView::DontAdjustForAntialiasing | QGraphicsView::DontSavePainterState);
  setCacheMode(QGraphicsView::CacheBackground);
  setAcceptDrops(true);
  setFocusPolicy(Qt::StrongFocus);
  // Fixed scroll bars keep the viewport's size, so a fit stays centred.
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
  minimap_ = new GraphMinimap(this, this);
  connect(scene_, &GraphScene::rebuilt, minimap_, &GraphMinimap::refit);
  connect(scene_, &GraphScene::rebuilt, this, &GraphView::placeMinimap);
  // A node dragged under the minimap: it moves out of the way once the drag rests.
  replace_minimap_.setSingleShot(true);
  replace_minimap_.setInterval(150);
  connect(&replace_minimap_, &QTimer::timeout, this, &GraphView::placeMinimap);
  connect(scene_, &QGraphicsScene::changed, &replace_minimap_, qOverload<>(&QTimer::start));
  placeMinimap();
}

void GraphView::placeMinimap() {
  // The minimap is for finding one's way in a graph larger than the canvas; it sits in a
  // corner of the canvas where it covers no node, and makes way when there is none.
  if (scene() == nullptr) {
    minimap_->hide();
    return;
  }
  const QSize area = viewport()->size();
  const QSize size(std::clamp(area.width() / 5, 120, 220), std::clamp(area.height() / 4, 80, 150));
  const QRectF nodes = scene_->nodesRect();
  const QRectF shown = mapToScene(viewport()->rect()).boundingRect();
  if (area.width() <= 400 || area.height() <= 250 || nodes.isEmpty() || shown.contains(nodes)) {
    minimap_->hide();
    return;
  }
  constexpr int kMargin = 8;
  const int right = area.width() - size.width() - kMargin, bottom = area.height() - size.height() - kMargin;
  for (const QPoint& corner :
       {QPoint(right, bottom), QPoint(kMargin, bottom), QPoint(right, kMargin), QPoint(kMargin, kMargin)}) {
    const QRect box(corner, size);
    // A node's halo and ports count as the node: a few pixels around the box.
    const QRectF under = mapToScene(box.adjusted(-4, -4, 4, 4)).boundingRect();
    bool free = true;
    for (QGraphicsItem* item : scene_->items(under, Qt::IntersectsItemBoundingRect))
      if (item->type() == NodeItem::Type) {
        free = false;
        break;
      }
    if (free) {
      minimap_->setGeometry(box);
      minimap_->show();
      return;
    }
  }
  minimap_->hide();
}

void GraphView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  placeMinimap();
}

void GraphView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  placeMinimap();
  minimap_->viewport()->update();
}

void GraphView::setZoom(double zoom) {
  const double clamped = std::clamp(zoom, 0.05, 4.0);
  setTransform(QTransform::fromScale(clamped, clamped));
  placeMinimap();
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
  // Life size, or smaller where the node (with room around it) would not fit; never closer
  // than the canvas already is.
  const QRectF box = item->sceneBoundingRect().adjusted(-40, -40, 40, 40);
  const double fit = std::min(viewport()->width() / box.width(), viewport()->height() / box.height());
  setZoom(std::max(zoom(), std::min(1.0, fit)));
  centerOn(item);
  placeMinimap();
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
  placeMinimap();
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
