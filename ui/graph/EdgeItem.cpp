#include "graph/EdgeItem.h"

#include "graph/NodeItem.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>

#include <cmath>

namespace clab::ui {
namespace {

const QFont& LabelFont() {
  static const QFont font = [] {
    QFont f;
    f.setPointSizeF(8);
    return f;
  }();
  return font;
}

// Cuts the segment a-b to `rect` (Liang-Barsky); false when none of it is inside.
bool ClipToRect(const QRectF& rect, QPointF* a, QPointF* b) {
  const QPointF d = *b - *a;
  double t0 = 0, t1 = 1;
  const double p[4] = {-d.x(), d.x(), -d.y(), d.y()};
  const double q[4] = {a->x() - rect.left(), rect.right() - a->x(), a->y() - rect.top(), rect.bottom() - a->y()};
  for (int k = 0; k < 4; ++k) {
    if (p[k] == 0) {
      if (q[k] < 0) return false;
      continue;
    }
    const double t = q[k] / p[k];
    if (p[k] < 0) t0 = std::max(t0, t);
    else t1 = std::min(t1, t);
    if (t0 > t1) return false;
  }
  const QPointF start = *a;
  *b = start + d * t1;
  *a = start + d * t0;
  return true;
}

// As NodeItem: below this scale labels cannot be read and curves need no antialiasing.
constexpr double kTextDetail = 0.4;

}  // namespace

EdgeItem::EdgeItem(NodeItem* src, int output, NodeItem* dst, int input, QString label, QString tooltip)
    : src_(src), output_(output), dst_(dst), input_(input), label_(std::move(label)) {
  setFlags(ItemIsSelectable);
  setFlag(ItemUsesExtendedStyleOption);  // paint() draws only the exposed part of a long edge
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

QPainterPath EdgeItem::detour(const QPointF& from, const QPointF& to, const QRectF& source, const QRectF& target) {
  // Out of the output to the right, along a lane between the nodes (where one is above the
  // other) or else above or below both (the side nearer the ports), and into the input from
  // the left; corners rounded.
  constexpr double kClear = 16, kRadius = 10;
  double lane = 0, out = 0, in = 0;
  if (source.bottom() + 2 * kClear <= target.top() || target.bottom() + 2 * kClear <= source.top()) {
    lane =
        source.bottom() <= target.top() ? (source.bottom() + target.top()) / 2 : (target.bottom() + source.top()) / 2;
    out = std::max(from.x(), source.right()) + kClear;
    in = std::min(to.x(), target.left()) - kClear;
  } else {
    const double below = std::max(source.bottom(), target.bottom()) + kClear;
    const double above = std::min(source.top(), target.top()) - kClear;
    const double middle = (from.y() + to.y()) / 2;
    lane = below - middle <= middle - above ? below : above;
    out = std::max({from.x(), source.right(), target.right()}) + kClear;
    in = std::min({to.x(), source.left(), target.left()}) - kClear;
  }
  const QPointF points[] = {from, {out, from.y()}, {out, lane}, {in, lane}, {in, to.y()}, to};
  QPainterPath path(from);
  for (int i = 1; i + 1 < 6; ++i) {
    const QPointF before = points[i] - points[i - 1], after = points[i + 1] - points[i];
    const double a = std::hypot(before.x(), before.y()), b = std::hypot(after.x(), after.y());
    if (a < 1e-6 || b < 1e-6) continue;
    const double r = std::min({kRadius, a / 2, b / 2});
    path.lineTo(points[i] - before / a * r);
    path.quadTo(points[i], points[i] + after / b * r);
  }
  path.lineTo(to);
  return path;
}

void EdgeItem::updatePath() {
  prepareGeometryChange();
  const QPointF from = src_->outputPos(isControl() ? 0 : output_);
  const QPointF to = isControl() ? dst_->controlPos() : dst_->inputPos(input_);
  // A curve between facing ports; an input left of (or too close to) its output would make
  // the curve cross both nodes, so that edge goes round them.
  if (to.x() - from.x() >= 30) setPath(curve(from, to));
  else setPath(detour(from, to, src_->sceneBoundingRect(), dst_->sceneBoundingRect()));
  const QList<QPolygonF> parts = path().toSubpathPolygons();
  flat_ = parts.isEmpty() ? QPolygonF() : parts.first();
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
  const bool detailed = option->levelOfDetailFromTransform(painter->worldTransform()) >= kTextDetail;
  painter->setRenderHint(QPainter::Antialiasing, detailed);
  // One pixel wide whatever the zoom (the painter's fast path for lines), a selected edge
  // wider.
  QPen pen(selected ? QColor(20, 90, 200) : QColor(75, 75, 75), selected && detailed ? 2.6 : 0);
  if (isControl()) {
    pen.setStyle(Qt::DashLine);
    pen.setColor(selected ? QColor(20, 90, 200) : QColor(130, 130, 130));
  }
  painter->setPen(pen);
  painter->setBrush(Qt::NoBrush);
  const QRectF exposed = option->exposedRect.adjusted(-4, -4, 4, 4);
  if (exposed.contains(boundingRect())) {
    painter->drawPath(path());
  } else {
    // A long edge seen in part (an edge across a large graph at life size): stroking and
    // dashing all of it to show a piece is what made such canvases slow. Only the pieces of
    // the flattened curve inside the exposed rect are drawn, dashes kept in step.
    QPolygonF run;
    double along = 0, run_start = 0;
    auto flush = [&] {
      if (run.size() > 1) {
        if (pen.style() != Qt::SolidLine) {
          // Dashes are measured in pen widths, a one-pixel pen's in pixels.
          pen.setDashOffset(pen.isCosmetic() ? run_start * painter->worldTransform().m11() : run_start / pen.widthF());
          painter->setPen(pen);
        }
        painter->drawPolyline(run);
      }
      run.clear();
    };
    for (int i = 0; i + 1 < flat_.size(); ++i) {
      QPointF a = flat_[i], b = flat_[i + 1];
      const double length = QLineF(a, b).length();
      if (ClipToRect(exposed, &a, &b)) {
        if (run.isEmpty() || run.last() != a) {
          flush();
          run_start = along + QLineF(flat_[i], a).length();
          run << a;
        }
        run << b;
      } else {
        flush();
      }
      along += length;
    }
    flush();
  }
  if (label_.isEmpty() || !detailed) return;
  const QRectF box = labelRect();
  painter->setPen(QPen(QColor(190, 190, 190), 0.8));
  painter->setBrush(QColor(255, 255, 255, 235));
  painter->drawRoundedRect(box, 3, 3);
  painter->setPen(QColor(30, 30, 30));
  painter->setFont(LabelFont());
  painter->drawText(box, Qt::AlignCenter, label_);
}

}  // namespace clab::ui
