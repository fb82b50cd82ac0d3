#include "views/ScalarSmoothing.h"

#include <algorithm>
#include <cmath>

namespace clab::ui {

QList<QPointF> SmoothScalars(const QList<QPointF>& raw, double weight) {
  weight = std::clamp(weight, 0.0, 1.0);
  const bool constant = std::all_of(raw.begin(), raw.end(), [&](const QPointF& p) { return p.y() == raw.front().y(); });
  QList<QPointF> smoothed;
  smoothed.reserve(raw.size());
  double last = 0;
  int accumulated = 0;
  for (const QPointF& point : raw) {
    if (constant || !std::isfinite(point.y())) {
      smoothed.append(point);
      continue;
    }
    last = last * weight + (1 - weight) * point.y();
    ++accumulated;
    const double debias = weight == 1.0 ? 1.0 : 1.0 - std::pow(weight, accumulated);
    smoothed.append({point.x(), last / debias});
  }
  return smoothed;
}

}  // namespace clab::ui
