// What one node of a step costs on one core of the calibrated machine: the time the traced
// step measured for it, or else the FLOP-count model (a fixed cost per op plus its FLOPs at
// the calibrated rate). Hosts of other speeds divide it by their speed.
#pragma once

#include "calibration/Calibration.h"
#include "model/StepPlan.h"

namespace clab::sim {

class OpCosts {
 public:
  explicit OpCosts(const Calibration& calibration) : calibration_(calibration) {}

  double Seconds(const PlanNode& node) const;
  // True when the trace timed this node.
  bool Traced(const PlanNode& node) const { return calibration_.node_seconds.count(node.name) > 0; }

  // Floating-point operations of one run of the node, from its shapes (unknown dimensions
  // count as 1): 2mnk for MatMul, 2 x outputs x window for convolutions, the elements
  // touched for the rest.
  static double Flops(const PlanNode& node);

 private:
  const Calibration& calibration_;
};

}  // namespace clab::sim
