#include "graph/GraphMinimap.h"

#include "translations/Retranslate.h"

#include <QGraphicsItem>
#include <QMouseEvent>
#include <QScrollBar>

namespace clab::ui {

GraphMinimap::GraphMinimap(QGraphicsView* main, QWidget* parent) : QGraphicsView(main->scene(), parent), main_(main) {
  setInteractive(false);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setRenderHint(QPainter::Antialiasing);
  setFrameShape(QFrame::Box);
  setStyleSheet("QGraphicsView { border: 1px solid #9a9a9a; background: #fbfbfb; }");
  setCursor(Qt::PointingHandCursor);
  new Retranslate(this, [this] { setToolTip(tr("The whole graph: click to go there")); });
  auto follow = [this] { viewport()->update(); };
  connect(main_->horizontalScrollBar(), &QScrollBar::valueChanged, this, follow);
  connect(main_->verticalScrollBar(), &QScrollBar::valueChanged, this, follow);
}

void GraphMinimap::refit() {
  QRectF nodes;
  for (QGraphicsItem* item : scene()->items())
    if (item->zValue() >= 1) nodes = nodes.united(item->sceneBoundingRect());
  if (nodes.isEmpty()) return;
  fitInView(nodes.adjusted(-20, -20, 20, 20), Qt::KeepAspectRatio);
  viewport()->update();
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

}  // namespace clab::ui
