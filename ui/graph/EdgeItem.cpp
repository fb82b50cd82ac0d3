#include "graph/EdgeItem.h"

#include "graph/NodeItem.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>

namespace clab::ui {
namespace {

QFont LabelFont() {
  QFont font;
  font.setPointSizeF(8);
  return font;
}

}  // namespace

EdgeItem::EdgeItem(NodeItem* src, int output, NodeItem* dst, int input, QString label, QString tooltip)
    : src_(src), output_(output), dst_(dst), input_(input), label_(std::move(label)) {
  setFlags(ItemIsSelectable);
  setZValue(0);
  setToolTip(tooltip);
  src_->addEdge(this);
  dst_->addEdge(this);
  updatePath();
}

QPainterPath EdgeItem::curve(const QPointF& from, const QPointF& to) {
  QPainterPath path(from);
  const double reach = std::max(40.0, std::abs(to.x() - from.x()) * 0.5);
  path.cubicTo(from + QPointF(reach, 0), to - QPointF(reach, 0), to);
  return path;
}

void EdgeItem::updatePath() {
  prepareGeometryChange();
  const QPointF from = src_->outputPos(isControl() ? 0 : output_);
  const QPointF to = isControl() ? dst_->controlPos() : dst_->inputPos(input_);
  setPath(curve(from, to));
}

QRectF EdgeItem::labelRect() const {
  if (label_.isEmpty()) return {};
  const QFontMetricsF metrics(LabelFont());
  const QSizeF size(metrics.horizontalAdvance(label_) + 8, metrics.height() + 2);
  // Just after the output port, where edges leaving other ports cannot be.
  const QPointF start = path().pointAtPercent(0);
  return QRectF(start + QPointF(9, -size.height() / 2), size);
}

QRectF EdgeItem::boundingRect() const {
  return QGraphicsPathItem::boundingRect().adjusted(-4, -4, 4, 4).united(labelRect());
}

QPainterPath EdgeItem::shape() const {
  QPainterPathStroker stroker;
  stroker.setWidth(8);
  QPainterPath hit = stroker.createStroke(path());
  if (!label_.isEmpty()) hit.addRect(labelRect());
  return hit;
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const bool selected = option->state & QStyle::State_Selected;
  painter->setRenderHint(QPainter::Antialiasing);
  QPen pen(selected ? QColor(20, 90, 200) : QColor(90, 90, 90), selected ? 2.6 : 1.5);
  if (isControl()) {
    pen.setStyle(Qt::DashLine);
    pen.setColor(selected ? QColor(20, 90, 200) : QColor(150, 150, 150));
  }
  painter->setPen(pen);
  painter->setBrush(Qt::NoBrush);
  painter->drawPath(path());
  if (label_.isEmpty()) return;
  const QRectF box = labelRect();
  painter->setPen(QPen(QColor(190, 190, 190), 0.8));
  painter->setBrush(QColor(255, 255, 255, 235));
  painter->drawRoundedRect(box, 3, 3);
  painter->setPen(QColor(30, 30, 30));
  painter->setFont(LabelFont());
  painter->drawText(box, Qt::AlignCenter, label_);
}

}  // namespace clab::ui
