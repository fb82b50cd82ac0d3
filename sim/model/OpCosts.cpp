#include "model/OpCosts.h"

#include <algorithm>

namespace clab::sim {
namespace {

double Elements(const std::vector<int64_t>& shape) {
  double n = 1;
  for (int64_t d : shape) n *= static_cast<double>(std::max<int64_t>(d, 1));
  return n;
}

double Largest(const std::vector<std::vector<int64_t>>& shapes) {
  double n = 0;
  for (const auto& shape : shapes) n = std::max(n, Elements(shape));
  return n;
}

int64_t Dim(const std::vector<int64_t>& shape, size_t i) {
  return i < shape.size() ? std::max<int64_t>(shape[i], 1) : 1;
}

}  // namespace

double OpCosts::Flops(const PlanNode& node) {
  const auto& in = node.input_shapes;
  const auto& out = node.output_shapes;
  if (node.op == "MatMul" && in.size() >= 2 && !out.empty()) {
    // [m, n] output; k is the shared dimension: the first input's elements over m.
    const double m = static_cast<double>(Dim(out[0], 0));
    const double k = Elements(in[0]) / std::max(m, 1.0);
    return 2.0 * Elements(out[0]) * k;
  }
  if ((node.op == "Conv2D" || node.op == "Conv2DBackpropInput") && in.size() >= 2 && !out.empty()) {
    // Every output element sums a window of the filter [h, w, in, out].
    const auto& filter = in[1];
    const double window = static_cast<double>(Dim(filter, 0) * Dim(filter, 1) * Dim(filter, 2));
    const double outputs = node.op == "Conv2D" ? Elements(out[0]) : Elements(in.size() > 2 ? in[2] : out[0]);
    return 2.0 * outputs * window;
  }
  if (node.op == "Conv2DBackpropFilter" && in.size() >= 3 && !out.empty()) {
    const auto& filter = out[0];
    const double window = static_cast<double>(Dim(filter, 0) * Dim(filter, 1) * Dim(filter, 2));
    return 2.0 * Elements(in[2]) * window;
  }
  return std::max(Largest(in), Largest(out));
}

double OpCosts::Seconds(const PlanNode& node) const {
  const auto it = calibration_.node_seconds.find(node.name);
  if (it != calibration_.node_seconds.end()) return it->second;
  if (node.op == "NoOp" || node.op == "Const") return calibration_.op_seconds;
  return calibration_.op_seconds + Flops(node) / calibration_.flops_per_second;
}

}  // namespace clab::sim
