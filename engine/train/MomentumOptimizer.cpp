#include "clab/train/MomentumOptimizer.h"

#include "clab/ops/Ops.h"

namespace clab {

StatusOr<Output> MomentumOptimizer::ApplyDense(GraphBuilder& g, const Output& var, const Output& grad) {
  const DataType dtype = g.TypeOf(grad);
  CLAB_ASSIGN_OR_RETURN(Output accumulation, Slot(g, var, "Momentum", 0.0));
  const Output momentum = Scalar(g, dtype, momentum_, "momentum");
  const Output rate = Scalar(g, dtype, learning_rate_, "learning_rate");
  // The Assign's output is the updated accumulation: reading it orders the two updates.
  const Output accumulated = ops::Assign(
      g, accumulation, ops::Add(g, ops::Mul(g, ops::Identity(g, accumulation), momentum), grad), "update_accumulation");
  const Output step = use_nesterov_ ? ops::Add(g, grad, ops::Mul(g, momentum, accumulated)) : Output(accumulated);
  return ops::AssignSub(g, var, ops::Mul(g, rate, step), "update_" + var.node());
}

}  // namespace clab
