// tf.train.GradientDescentOptimizer: var -= learning_rate * grad; a sparse gradient (an
// embedding's) updates only its rows, with ScatterSub.
//
//   GradientDescentOptimizer sgd(0.1);
//   auto train = sgd.Minimize(g, loss, GetOrCreateGlobalStep(g));
//   session.Run({}, {}, {train->node()}, &out);
#pragma once

#include "clab/train/Optimizer.h"

namespace clab {

class GradientDescentOptimizer : public Optimizer {
 public:
  explicit GradientDescentOptimizer(double learning_rate) : learning_rate_(learning_rate) {}
  std::string name() const override { return "GradientDescent"; }
  double learning_rate() const { return learning_rate_; }

 protected:
  StatusOr<Output> ApplyDense(GraphBuilder& graph, const Output& var, const Output& grad) override;
  StatusOr<Output> ApplySparse(GraphBuilder& graph, const Output& var, const Output& values, const Output& indices,
                               const Output& rows) override;

 private:
  const double learning_rate_;
};

}  // namespace clab
