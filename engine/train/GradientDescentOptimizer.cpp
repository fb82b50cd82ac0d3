#include "clab/train/GradientDescentOptimizer.h"

#include "clab/ops/Ops.h"

namespace clab {

StatusOr<Output> GradientDescentOptimizer::ApplyDense(GraphBuilder& g, const Output& var, const Output& grad) {
  const Output rate = Scalar(g, g.TypeOf(grad), learning_rate_, "learning_rate");
  return ops::AssignSub(g, var, ops::Mul(g, rate, grad), "update_" + var.node());
}

StatusOr<Output> GradientDescentOptimizer::ApplySparse(GraphBuilder& g, const Output& var, const Output& values,
                                                       const Output& indices, const Output& rows) {
  const Output rate = Scalar(g, g.TypeOf(values), learning_rate_, "learning_rate");
  return ops::ScatterSub(g, var, indices, ops::Mul(g, rate, values), "update_" + var.node());
}

}  // namespace clab
