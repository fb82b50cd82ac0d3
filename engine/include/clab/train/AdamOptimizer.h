// tf.train.AdamOptimizer: m = beta1 m + (1 - beta1) grad; v = beta2 v + (1 - beta2) grad^2;
// var -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + epsilon). m and v are slot
// variables next to each var; beta1^t and beta2^t are two variables next to the first
// var, multiplied by beta1 and beta2 after every update of a step.
#pragma once

#include "clab/train/Optimizer.h"

namespace clab {

class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(double learning_rate = 0.001, double beta1 = 0.9, double beta2 = 0.999, double epsilon = 1e-8)
      : learning_rate_(learning_rate), beta1_(beta1), beta2_(beta2), epsilon_(epsilon) {}
  std::string name() const override { return "Adam"; }

 protected:
  Status Prepare(GraphBuilder& graph, const Output& first_var) override;
  StatusOr<Output> ApplyDense(GraphBuilder& graph, const Output& var, const Output& grad) override;
  StatusOr<Output> Finish(GraphBuilder& graph, const std::vector<Output>& updates) override;

 private:
  const double learning_rate_;
  const double beta1_;
  const double beta2_;
  const double epsilon_;
  Output beta1_power_;
  Output beta2_power_;
  DataType dtype_ = DT_FLOAT;
};

}  // namespace clab
