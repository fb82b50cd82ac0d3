// Linear regression on synthetic data, generated inside the graph: every step draws a
// minibatch x ~ U(0, 1) and y = 3x + 2 + noise on the worker (seeded per task), and
// gradient descent fits w and b (on the ps under replica_device_setter) to 3 and 2.
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/train/SyncReplicasOptimizer.h"

#include <cstdint>
#include <memory>

namespace clab::examples {

struct RegressionGraph {
  Output w, b;  // the variables (read them as "w:0", "b:0")
  Output loss;  // mean squared error of the minibatch
  Output train;
  std::shared_ptr<SyncReplicasOptimizer> sync;  // set for synchronous replicas
};

inline constexpr double kRegressionSlope = 3.0;
inline constexpr double kRegressionIntercept = 2.0;

StatusOr<RegressionGraph> BuildLinearRegression(GraphBuilder& graph, int batch, double learning_rate, int64_t seed,
                                                int sync_replicas = 0);

}  // namespace clab::examples
