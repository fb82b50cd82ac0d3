// TensorBoard's smoothing of a scalar curve: an exponential moving average whose early values
// are debiased (divided by 1 - weight^n, so the curve does not start near zero). A weight of 0
// leaves the values as they are; 0.99 smooths hard. A constant curve and values that are not
// finite are left as they are.
#pragma once

#include <QList>
#include <QPointF>

namespace clab::ui {

QList<QPointF> SmoothScalars(const QList<QPointF>& raw, double weight);

}  // namespace clab::ui
