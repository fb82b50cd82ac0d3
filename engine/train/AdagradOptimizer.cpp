#include "clab/train/AdagradOptimizer.h"

#include "clab/ops/Ops.h"

namespace clab {

StatusOr<Output> AdagradOptimizer::ApplyDense(GraphBuilder& g, const Output& var, const Output& grad) {
  const DataType dtype = g.TypeOf(grad);
  CLAB_ASSIGN_OR_RETURN(Output accumulator, Slot(g, var, "Adagrad", initial_));
  const Output accumulated = ops::AssignAdd(g, accumulator, ops::Square(g, grad), "update_accumulator");
  const Output rate = Scalar(g, dtype, learning_rate_, "learning_rate");
  const Output step = ops::RealDiv(g, ops::Mul(g, rate, grad), ops::Sqrt(g, accumulated));
  return ops::AssignSub(g, var, step, "update_" + var.node());
}

}  // namespace clab
