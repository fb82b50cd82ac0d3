#include "clab/train/AdamOptimizer.h"

#include "clab/ops/Ops.h"

namespace clab {

Status AdamOptimizer::Prepare(GraphBuilder& g, const Output& first_var) {
  dtype_ = BaseType(g.TypeOf(first_var));
  auto scope = g.WithoutDevice();
  auto colocate = g.ColocateWith(first_var);
  beta1_power_ = ops::MakeVariable(g, Scalar(g, dtype_, beta1_, "beta1_power/initial_value"), "beta1_power", false).var;
  beta2_power_ = ops::MakeVariable(g, Scalar(g, dtype_, beta2_, "beta2_power/initial_value"), "beta2_power", false).var;
  return g.status();
}

StatusOr<Output> AdamOptimizer::ApplyDense(GraphBuilder& g, const Output& var, const Output& grad) {
  const DataType dtype = g.TypeOf(grad);
  CLAB_ASSIGN_OR_RETURN(Output m, Slot(g, var, "Adam", 0.0));
  CLAB_ASSIGN_OR_RETURN(Output v, Slot(g, var, "Adam_1", 0.0));
  auto one = [&] { return Scalar(g, dtype, 1.0); };
  const Output new_m = ops::Assign(g, m,
                                   ops::Add(g, ops::Mul(g, Scalar(g, dtype, beta1_), ops::Identity(g, m)),
                                            ops::Mul(g, Scalar(g, dtype, 1 - beta1_), grad)),
                                   "update_m");
  const Output new_v = ops::Assign(g, v,
                                   ops::Add(g, ops::Mul(g, Scalar(g, dtype, beta2_), ops::Identity(g, v)),
                                            ops::Mul(g, Scalar(g, dtype, 1 - beta2_), ops::Square(g, grad))),
                                   "update_v");
  // lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t), with the powers of this step.
  const Output rate = ops::RealDiv(
      g,
      ops::Mul(g, Scalar(g, dtype, learning_rate_), ops::Sqrt(g, ops::Sub(g, one(), ops::Identity(g, beta2_power_)))),
      ops::Sub(g, one(), ops::Identity(g, beta1_power_)));
  const Output step =
      ops::Mul(g, rate, ops::RealDiv(g, new_m, ops::Add(g, ops::Sqrt(g, new_v), Scalar(g, dtype, epsilon_))));
  return ops::AssignSub(g, var, step, "update_" + var.node());
}

StatusOr<Output> AdamOptimizer::Finish(GraphBuilder& g, const std::vector<Output>& updates) {
  auto colocate = g.ColocateWith(beta1_power_);
  const Output b1 = ops::Assign(g, beta1_power_, ops::Mul(g, ops::Identity(g, beta1_power_), Scalar(g, dtype_, beta1_)),
                                "update_beta1_power");
  const Output b2 = ops::Assign(g, beta2_power_, ops::Mul(g, ops::Identity(g, beta2_power_), Scalar(g, dtype_, beta2_)),
                                "update_beta2_power");
  return ops::NoOp(g, {b1.control(), b2.control()}, "update_beta_powers");
}

}  // namespace clab
