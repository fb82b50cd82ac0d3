#include "graph/NodeItem.h"

#include "graph/EdgeItem.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <cmath>

namespace clab::ui {
namespace {

constexpr double kTitleHeight = 42;
constexpr double kPortRow = 18;
constexpr double kPortRadius = 5;
constexpr double kMinWidth = 150;

// Below this scale text cannot be read: a node is drawn as a plain box in its colour.
constexpr double kTextDetail = 0.4;
// Down to this scale such a box still shows its op.
constexpr double kLabelDetail = 0.2;

const QFont& TitleFont() {
  static const QFont font = [] {
    QFont f;
    f.setPointSizeF(9.5);
    f.setBold(true);
    return f;
  }();
  return font;
}

const QFont& TextFont() {
  static const QFont font = [] {
    QFont f;
    f.setPointSizeF(8.5);
    return f;
  }();
  return font;
}

QString DTypeText(DataType dtype) {
  return dtype == DT_INVALID ? QString("?") : QString::fromStdString(DataTypeName(dtype));
}

}  // namespace

NodeItem::NodeItem(NodeLook look) : look_(std::move(look)), size_(sizeFor(look_)) {
  setFlags(ItemIsSelectable | ItemIsMovable | ItemSendsGeometryChanges);
  // What paint() would otherwise work out each time.
  QPainterPath rounded;
  rounded.addRoundedRect(QRectF(QPointF(0, 0), size_), 6, 6);
  QPainterPath band;
  band.addRect(QRectF(0, 0, size_.width(), kTitleHeight));
  title_band_ = rounded.intersected(band);
  shown_name_ = QFontMetricsF(TextFont()).elidedText(look_.name, Qt::ElideMiddle, size_.width() - 20);
  setZValue(1);
  QString tip = look_.members > 0
                    ? QStringLiteral("<b>%1</b>: a name scope of %2 nodes, collapsed")
                          .arg(look_.op.toHtmlEscaped())
                          .arg(look_.members)
                    : QStringLiteral("<b>%1</b> (%2)").arg(look_.name.toHtmlEscaped(), look_.op.toHtmlEscaped());
  tip +=
      QStringLiteral("<br>device: %1").arg(look_.device.isEmpty() ? "(none requested)" : look_.device.toHtmlEscaped());
  if (!look_.assigned.isEmpty()) tip += QStringLiteral("<br>placed on: %1").arg(look_.assigned.toHtmlEscaped());
  if (!look_.error.isEmpty())
    tip += QStringLiteral("<br><span style='color:#c00000'>%1</span>").arg(look_.error.toHtmlEscaped());
  setToolTip(tip);
}

QSizeF NodeItem::sizeFor(const NodeLook& look) {
  const QFontMetricsF title(TitleFont()), text(TextFont());
  if (look.members > 0)
    return {std::ceil(std::max({kMinWidth, title.horizontalAdvance(look.op) + 50,
                                text.horizontalAdvance("000 nodes; double-click to expand") + 24})),
            kTitleHeight + kPortRow + 8};
  double width = std::max({kMinWidth, title.horizontalAdvance(look.op) + 36, text.horizontalAdvance(look.name) + 24});
  const int inputs = static_cast<int>(look.ports.input_names.size());
  const int outputs = static_cast<int>(look.ports.output_names.size());
  for (int i = 0; i < std::max(inputs, outputs); ++i) {
    double row = 28;
    if (i < inputs)
      row += text.horizontalAdvance(
          look.ports.input_names[i] + ": " +
          DTypeText(look.ports.input_types.size() > static_cast<size_t>(i) ? look.ports.input_types[i] : DT_INVALID));
    if (i < outputs)
      row += text.horizontalAdvance(
          look.ports.output_names[i] + ": " +
          DTypeText(look.ports.output_types.size() > static_cast<size_t>(i) ? look.ports.output_types[i] : DT_INVALID));
    width = std::max(width, row);
  }
  const int rows = std::max(inputs, outputs);
  return {std::ceil(width), kTitleHeight + rows * kPortRow + (rows > 0 ? 8 : 4)};
}

QRectF NodeItem::boundingRect() const {
  // Everything paint() draws: the ports standing out of the sides, the selection halo (4 out,
  // a 6-wide pen) and a collapsed scope's cards (6 down and right), with a pixel to spare for
  // antialiasing. Drawing outside it would leave trails when the node moves.
  constexpr double kOut = 4 + 3 + 1;
  return QRectF(QPointF(0, 0), size_)
      .adjusted(-std::max(kOut, kPortRadius + 2), -kOut, std::max(kOut, kPortRadius + 2), kOut);
}

QString NodeItem::portLabel(bool output, int slot) const {
  const auto& names = output ? look_.ports.output_names : look_.ports.input_names;
  const auto& types = output ? look_.ports.output_types : look_.ports.input_types;
  return names.value(slot) + ": " +
         DTypeText(static_cast<size_t>(slot) < types.size() ? types[static_cast<size_t>(slot)] : DT_INVALID);
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const QRectF box(QPointF(0, 0), size_);
  const bool selected = option->state & QStyle::State_Selected;
  if (option->levelOfDetailFromTransform(painter->worldTransform()) < kTextDetail) {
    // Zoomed far out (a large graph fitted): the box in its colour, or in the colour of
    // selection or of a fault (a border would be thinner than a pixel).
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->fillRect(box, selected ? QColor(20, 90, 200) : hasError() ? QColor(210, 30, 30) : look_.fill.darker(115));
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    if (lod >= kLabelDetail) {
      // A graph of tens of nodes fitted: the op, in a size that reads on screen.
      QFont font = TitleFont();
      font.setPointSizeF(TitleFont().pointSizeF() * 0.85 / lod);
      painter->setFont(font);
      painter->setPen(selected || hasError() ? Qt::white : Qt::black);
      const QRectF inside = box.adjusted(4 / lod, 0, -4 / lod, 0);
      painter->drawText(
          inside, Qt::AlignCenter,
          QFontMetricsF(font).elidedText(isGroup() ? look_.op + "/" : look_.op, Qt::ElideRight, inside.width()));
    }
    return;
  }
  painter->setRenderHint(QPainter::Antialiasing);
  QPen border(QColor(70, 70, 70), 1.2);
  if (hasError()) border = QPen(QColor(210, 30, 30), 3);
  if (selected) border = QPen(hasError() ? QColor(210, 30, 30) : QColor(20, 90, 200), 3.2, Qt::SolidLine);
  if (isGroup()) {
    // A collapsed scope: a stack of cards, its name and how many nodes it holds.
    painter->setPen(QPen(QColor(70, 70, 70), 1.2, Qt::DashLine));
    painter->setBrush(look_.fill.lighter(125));
    painter->drawRoundedRect(box.translated(6, 6), 6, 6);
    painter->drawRoundedRect(box.translated(3, 3), 6, 6);
    painter->setPen(selected ? QPen(QColor(20, 90, 200), 3.2) : QPen(QColor(70, 70, 70), 1.6, Qt::DashLine));
    painter->setBrush(look_.fill);
    painter->drawRoundedRect(box, 6, 6);
    painter->setPen(Qt::black);
    painter->setFont(TitleFont());
    painter->drawText(QRectF(10, 3, size_.width() - 20, 20), Qt::AlignLeft | Qt::AlignVCenter,
                      QString::fromUtf8("\u229e ") + look_.op);
    painter->setFont(TextFont());
    painter->drawText(QRectF(10, 21, size_.width() - 20, 18), Qt::AlignLeft | Qt::AlignVCenter,
                      QStringLiteral("%1 nodes; double-click to expand").arg(look_.members));
    for (const QPointF& p : {localInput(0), localOutput(0)}) {
      painter->setPen(QPen(QColor(60, 60, 60), 1));
      painter->setBrush(QColor(255, 255, 255));
      painter->drawEllipse(p, kPortRadius, kPortRadius);
    }
    return;
  }
  painter->setPen(border);
  painter->setBrush(look_.fill.lighter(112));
  painter->drawRoundedRect(box, 6, 6);
  // Title band in the full device colour.
  painter->setPen(Qt::NoPen);
  painter->setBrush(look_.fill);
  painter->drawPath(title_band_);
  painter->setPen(border);
  painter->setBrush(Qt::NoBrush);
  painter->drawRoundedRect(box, 6, 6);
  if (selected) {
    painter->setPen(QPen(QColor(20, 90, 200, 90), 6));
    painter->drawRoundedRect(box.adjusted(-4, -4, 4, 4), 8, 8);
  }

  painter->setPen(Qt::black);
  painter->setFont(TitleFont());
  painter->drawText(QRectF(10, 3, size_.width() - 20, 20), Qt::AlignLeft | Qt::AlignVCenter, look_.op);
  painter->setFont(TextFont());
  painter->setPen(QColor(40, 40, 40));
  painter->drawText(QRectF(10, 21, size_.width() - 20, 18), Qt::AlignLeft | Qt::AlignVCenter, shown_name_);
  if (hasError()) {
    const QRectF badge(size_.width() - 22, 6, 16, 16);
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(210, 30, 30));
    painter->drawEllipse(badge);
    painter->setPen(Qt::white);
    painter->setFont(TitleFont());
    painter->drawText(badge, Qt::AlignCenter, "!");
    painter->setFont(TextFont());
  }

  for (int slot = 0; slot < inputCount(); ++slot) {
    const QPointF p = localInput(slot);
    painter->setPen(QPen(QColor(60, 60, 60), 1));
    painter->setBrush(QColor(255, 255, 255));
    painter->drawEllipse(p, kPortRadius, kPortRadius);
    painter->setPen(QColor(30, 30, 30));
    painter->drawText(QRectF(p.x() + 9, p.y() - kPortRow / 2, size_.width() / 2 + 20, kPortRow),
                      Qt::AlignLeft | Qt::AlignVCenter, portLabel(false, slot));
  }
  for (int slot = 0; slot < outputCount(); ++slot) {
    const QPointF p = localOutput(slot);
    painter->setPen(QPen(QColor(60, 60, 60), 1));
    painter->setBrush(QColor(60, 60, 60));
    painter->drawEllipse(p, kPortRadius, kPortRadius);
    painter->setPen(QColor(30, 30, 30));
    painter->drawText(QRectF(p.x() - 9 - size_.width(), p.y() - kPortRow / 2, size_.width(), kPortRow),
                      Qt::AlignRight | Qt::AlignVCenter, portLabel(true, slot));
  }
}

QPointF NodeItem::localInput(int slot) const { return {0, kTitleHeight + kPortRow * (slot + 0.5) + 2}; }
QPointF NodeItem::localOutput(int slot) const { return {size_.width(), kTitleHeight + kPortRow * (slot + 0.5) + 2}; }
QPointF NodeItem::inputPos(int slot) const { return mapToScene(localInput(slot)); }
QPointF NodeItem::outputPos(int slot) const { return mapToScene(localOutput(std::max(slot, 0))); }
QPointF NodeItem::controlPos() const { return mapToScene(QPointF(0, kTitleHeight / 2)); }

int NodeItem::inputAt(const QPointF& scene_pos) const {
  const QPointF p = mapFromScene(scene_pos);
  for (int slot = 0; slot < inputCount(); ++slot) {
    const QPointF port = localInput(slot);
    if (std::abs(p.y() - port.y()) <= kPortRow / 2 && p.x() >= -kPortRadius - 3 && p.x() <= size_.width() / 2)
      return slot;
  }
  return -1;
}

int NodeItem::outputAt(const QPointF& scene_pos) const {
  const QPointF p = mapFromScene(scene_pos);
  for (int slot = 0; slot < outputCount(); ++slot) {
    const QPointF port = localOutput(slot);
    if (std::abs(p.y() - port.y()) <= kPortRow / 2 && p.x() >= size_.width() - 16 &&
        p.x() <= size_.width() + kPortRadius + 3)
      return slot;
  }
  return -1;
}

QVariant NodeItem::itemChange(GraphicsItemChange change, const QVariant& value) {
  if (change == ItemPositionHasChanged) {
    for (EdgeItem* edge : edges_) edge->updatePath();
    if (on_moved) on_moved(look_.name, pos());
  }
  return QGraphicsItem::itemChange(change, value);
}

}  // namespace clab::ui
