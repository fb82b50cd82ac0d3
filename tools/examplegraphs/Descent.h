// The example models' training op: plain gradient descent on `loss`, incrementing the global
// step; with sync_replicas > 0 through SyncReplicasOptimizer (the mean of that many workers'
// gradients per update), which is then returned in `sync` for its session hook.
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/train/SyncReplicasOptimizer.h"

#include <memory>

namespace clab::tools {

StatusOr<Output> MinimizeWithDescent(GraphBuilder& graph, const Output& loss, double learning_rate, int sync_replicas,
                                     std::shared_ptr<SyncReplicasOptimizer>* sync);

}  // namespace clab::tools
