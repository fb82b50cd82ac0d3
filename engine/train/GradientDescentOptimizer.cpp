#include "clab/train/GradientDescentOptimizer.h"

#include "clab/ops/Ops.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/Gradients.h"

namespace clab {

StatusOr<Output> GradientDescentOptimizer::Minimize(GraphBuilder& g, const Output& loss,
                                                    const std::optional<Output>& global_step,
                                                    std::vector<std::string> variables, std::string_view name) {
  if (variables.empty()) variables = g.Collection("trainable_variables");
  std::vector<Output> xs;
  for (const std::string& variable : variables) xs.emplace_back(variable, 0);
  CLAB_ASSIGN_OR_RETURN(std::vector<Output> grads, Gradients(g, loss, xs));

  std::vector<Output> updates;
  {
    auto scope = g.WithNameScope("GradientDescent");
    for (size_t i = 0; i < xs.size(); ++i) {
      if (!grads[i].valid()) continue;  // the loss does not depend on this variable
      auto colocate = g.ColocateWith(xs[i]);
      const DataType dtype = g.TypeOf(grads[i]);
      const Output rate = dtype == DT_DOUBLE ? ops::Const(g, Tensor::Scalar<double>(learning_rate_), "learning_rate")
                                             : ops::Const(g, Tensor::Scalar<float>(static_cast<float>(learning_rate_)),
                                                          "learning_rate");
      const Output step = ops::Mul(g, rate, grads[i]);
      updates.push_back(ops::AssignSub(g, xs[i], step, "update_" + xs[i].node()).control());
    }
  }
  if (updates.empty())
    return errors::FailedPrecondition("No gradients for any variable: the loss '", loss.name(),
                                      "' does not depend on any of ", variables.size(), " trainable variables");
  std::vector<Output> done = updates;
  if (global_step) {
    auto after_updates = g.WithControlDependencies(updates);
    done = {IncrementGlobalStep(g, *global_step).control()};
  }
  Output train = ops::NoOp(g, done, name);
  CLAB_RETURN_IF_ERROR(g.status());
  g.AddToCollection("train_op", train.node());
  return train;
}

}  // namespace clab
