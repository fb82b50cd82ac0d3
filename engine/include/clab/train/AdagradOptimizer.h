// tf.train.AdagradOptimizer: accumulator += grad^2; var -= learning_rate * grad / sqrt(accumulator). The accumulator, a
// slot variable next to var on its ps, starts at initial_accumulator_value.
#pragma once

#include "clab/train/Optimizer.h"

namespace clab {

class AdagradOptimizer : public Optimizer {
 public:
  explicit AdagradOptimizer(double learning_rate, double initial_accumulator_value = 0.1)
      : learning_rate_(learning_rate), initial_(initial_accumulator_value) {}
  std::string name() const override { return "Adagrad"; }

 protected:
  StatusOr<Output> ApplyDense(GraphBuilder& graph, const Output& var, const Output& grad) override;

 private:
  const double learning_rate_;
  const double initial_;
};

}  // namespace clab
