// tf.train.RMSPropOptimizer: ms = decay * ms + (1 - decay) * grad^2; mom = momentum * mom + learning_rate * grad /
// sqrt(ms + epsilon); var -= mom. ms (starting at 1) and mom are slot variables next to var on its ps.
#pragma once

#include "clab/train/Optimizer.h"

namespace clab {

class RMSPropOptimizer : public Optimizer {
 public:
  explicit RMSPropOptimizer(double learning_rate, double decay = 0.9, double momentum = 0.0, double epsilon = 1e-10)
      : learning_rate_(learning_rate), decay_(decay), momentum_(momentum), epsilon_(epsilon) {}
  std::string name() const override { return "RMSProp"; }

 protected:
  StatusOr<Output> ApplyDense(GraphBuilder& graph, const Output& var, const Output& grad) override;

 private:
  const double learning_rate_;
  const double decay_;
  const double momentum_;
  const double epsilon_;
};

}  // namespace clab
