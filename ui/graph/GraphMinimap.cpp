#include "graph/GraphMinimap.h"

#include "graph/GraphScene.h"
#include "translations/Retranslate.h"

#include <QGraphicsItem>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>

namespace clab::ui {

GraphMinimap::GraphMinimap(QGraphicsView* main, QWidget* parent)
    : QGraphicsView(parent), main_(main), graph_(main->scene()) {
  setScene(new QGraphicsScene(this));
  setInteractive(false);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setRenderHint(QPainter::SmoothPixmapTransform);
  setFrameShape(QFrame::Box);
  setStyleSheet("QGraphicsView { border: 1px solid #9a9a9a; background: #fbfbfb; }");
  setCursor(Qt::PointingHandCursor);
  new Retranslate(this, [this] { setToolTip(tr("The whole graph: click to go there")); });
  auto follow = [this] { viewport()->update(); };
  connect(main_->horizontalScrollBar(), &QScrollBar::valueChanged, this, follow);
  connect(main_->verticalScrollBar(), &QScrollBar::valueChanged, this, follow);
  // A node moved or restyled: draw the picture again once things settle.
  redraw_.setSingleShot(true);
  redraw_.setInterval(200);
  connect(&redraw_, &QTimer::timeout, this, [this] {
    stale_ = true;
    viewport()->update();
  });
  connect(graph_, &QGraphicsScene::changed, this, [this] {
    if (isVisible()) redraw_.start();
    else stale_ = true;
  });
}

void GraphMinimap::refit() {
  if (!graph_) return;
  const auto* graph = qobject_cast<GraphScene*>(graph_);
  nodes_ = graph ? graph->nodesRect() : graph_->itemsBoundingRect();
  stale_ = true;
  if (nodes_.isEmpty()) return;
  const QRectF extent = nodes_.adjusted(-20, -20, 20, 20);
  scene()->setSceneRect(extent);
  fitInView(extent, Qt::KeepAspectRatio);
  viewport()->update();
}

void GraphMinimap::drawBackground(QPainter* painter, const QRectF& rect) {
  QGraphicsView::drawBackground(painter, rect);
  if (nodes_.isEmpty() || !graph_) return;
  const QRect target = mapFromScene(nodes_).boundingRect();
  if (stale_ || picture_.size() != target.size() * devicePixelRatioF()) {
    stale_ = false;
    picture_ = QPixmap(target.size() * devicePixelRatioF());
    picture_.setDevicePixelRatio(devicePixelRatioF());
    picture_.fill(Qt::transparent);
    QPainter picture(&picture_);
    picture.setRenderHint(QPainter::Antialiasing);
    graph_->render(&picture, QRectF(QPointF(0, 0), target.size()), nodes_, Qt::KeepAspectRatio);
  }
  painter->drawPixmap(nodes_, picture_, QRectF(QPointF(0, 0), picture_.size()));
}

void GraphMinimap::drawForeground(QPainter* painter, const QRectF&) {
  const QRectF shown = main_->mapToScene(main_->viewport()->rect()).boundingRect();
  painter->setPen(QPen(QColor(20, 90, 200), 0));
  painter->setBrush(QColor(20, 90, 200, 30));
  painter->drawRect(shown);
}

void GraphMinimap::mousePressEvent(QMouseEvent* event) {
  main_->centerOn(mapToScene(event->position().toPoint()));
  event->accept();
}

void GraphMinimap::mouseMoveEvent(QMouseEvent* event) {
  if (event->buttons() & Qt::LeftButton) main_->centerOn(mapToScene(event->position().toPoint()));
  event->accept();
}

void GraphMinimap::wheelEvent(QWheelEvent* event) { event->ignore(); }

void GraphMinimap::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  refit();
}

void GraphMinimap::showEvent(QShowEvent* event) {
  QGraphicsView::showEvent(event);
  refit();
}

}  // namespace clab::ui
