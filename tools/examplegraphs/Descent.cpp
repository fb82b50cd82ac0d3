#include "examplegraphs/Descent.h"

#include "clab/train/GlobalStep.h"
#include "clab/train/GradientDescentOptimizer.h"

namespace clab::tools {

StatusOr<Output> MinimizeWithDescent(GraphBuilder& g, const Output& loss, double learning_rate, int sync_replicas,
                                     std::shared_ptr<SyncReplicasOptimizer>* sync) {
  const Output global_step = GetOrCreateGlobalStep(g);
  auto descent = std::make_shared<GradientDescentOptimizer>(learning_rate);
  if (sync_replicas <= 0) return descent->Minimize(g, loss, global_step);
  *sync = std::make_shared<SyncReplicasOptimizer>(
      descent, SyncReplicasOptions{.replicas_to_aggregate = sync_replicas, .total_num_replicas = sync_replicas});
  return (*sync)->Minimize(g, loss, global_step);
}

}  // namespace clab::tools
