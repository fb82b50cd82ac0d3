// tf.train.MomentumOptimizer: accumulation = momentum * accumulation + grad; var -= learning_rate * accumulation
// (use_nesterov: var -= learning_rate * (grad + momentum * accumulation)). The accumulation is a slot variable next to
// var on its ps.
#pragma once

#include "clab/train/Optimizer.h"

namespace clab {

class MomentumOptimizer : public Optimizer {
 public:
  explicit MomentumOptimizer(double learning_rate, double momentum, bool use_nesterov = false)
      : learning_rate_(learning_rate), momentum_(momentum), use_nesterov_(use_nesterov) {}
  std::string name() const override { return "Momentum"; }

 protected:
  StatusOr<Output> ApplyDense(GraphBuilder& graph, const Output& var, const Output& grad) override;

 private:
  const double learning_rate_;
  const double momentum_;
  const bool use_nesterov_;
};

}  // namespace clab
