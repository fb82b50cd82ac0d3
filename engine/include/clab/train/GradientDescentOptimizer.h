// tf.train.GradientDescentOptimizer: var -= learning_rate * d loss / d var for every trainable
// variable. The gradients are built next to the forward ops (on the worker); each update is
// colocated with its variable (on its ps), so only the gradient crosses to the ps. With a
// global step, the step is incremented after the updates, in the same run.
//
//   GradientDescentOptimizer sgd(0.1);
//   auto train = sgd.Minimize(g, loss, GetOrCreateGlobalStep(g));
//   session.Run({}, {}, {train->node()}, &out);
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"

#include <optional>
#include <string>
#include <vector>

namespace clab {

class GradientDescentOptimizer {
 public:
  explicit GradientDescentOptimizer(double learning_rate) : learning_rate_(learning_rate) {}

  // The train op (a NoOp named `name`). `variables` empty: the "trainable_variables"
  // collection. FAILED_PRECONDITION when no variable gets a gradient from `loss`.
  StatusOr<Output> Minimize(GraphBuilder& graph, const Output& loss, const std::optional<Output>& global_step = {},
                            std::vector<std::string> variables = {}, std::string_view name = "train");

  double learning_rate() const { return learning_rate_; }

 private:
  const double learning_rate_;
};

}  // namespace clab
