#include "clab/train/RMSPropOptimizer.h"

#include "clab/ops/Ops.h"

namespace clab {

StatusOr<Output> RMSPropOptimizer::ApplyDense(GraphBuilder& g, const Output& var, const Output& grad) {
  const DataType dtype = g.TypeOf(grad);
  CLAB_ASSIGN_OR_RETURN(Output ms, Slot(g, var, "RMSProp", 1.0));
  CLAB_ASSIGN_OR_RETURN(Output mom, Slot(g, var, "Momentum", 0.0));
  const Output new_ms = ops::Assign(g, ms,
                                    ops::Add(g, ops::Mul(g, Scalar(g, dtype, decay_), ops::Identity(g, ms)),
                                             ops::Mul(g, Scalar(g, dtype, 1.0 - decay_), ops::Square(g, grad))),
                                    "update_ms");
  const Output scaled = ops::RealDiv(g, ops::Mul(g, Scalar(g, dtype, learning_rate_), grad),
                                     ops::Sqrt(g, ops::Add(g, new_ms, Scalar(g, dtype, epsilon_))));
  const Output new_mom = ops::Assign(
      g, mom, ops::Add(g, ops::Mul(g, Scalar(g, dtype, momentum_), ops::Identity(g, mom)), scaled), "update_mom");
  return ops::AssignSub(g, var, new_mom, "update_" + var.node());
}

}  // namespace clab
