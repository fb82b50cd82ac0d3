// Synchronous replicas, as tf.train.SyncReplicasOptimizer: every worker computes gradients
// on its own minibatch and adds them to one accumulator per variable (on the variable's
// ps); the chief waits for `replicas_to_aggregate` of them, applies their mean with the
// wrapped optimizer and increments the global step once; then it hands out tokens that let
// each worker start its next step from the new parameters. A gradient computed from
// parameters older than the current step (a slow worker's) is stale and dropped.
//
//   clab::SyncReplicasOptimizer sync(std::make_shared<clab::GradientDescentOptimizer>(0.1),
//                                    {.replicas_to_aggregate = 2, .total_num_replicas = 2});
//   auto train = sync.Minimize(g, loss, global_step);
//   options.hooks.push_back(sync.MakeSessionRunHook(is_chief));
//
// Every worker runs the returned train op; the hook initialises the worker's local step,
// and on the chief adds the first tokens and runs the aggregation loop on a thread of its
// own. Improvements on TensorFlow: the chief's loop recovers from a restarted ps by itself;
// when the chief ends it releases its waiting take and closes the token queue, so a replica
// still waiting for a token stops (OUT_OF_RANGE ends its monitored session) instead of
// hanging. A closed queue stays closed on its ps: a new training run needs fresh ps tasks.
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/train/Optimizer.h"
#include "clab/train/SessionRunHook.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clab {

struct SyncReplicasOptions {
  int replicas_to_aggregate = 1;
  int total_num_replicas = -1;  // -1: replicas_to_aggregate
  std::string name = "sync_replicas";
};

// The graph pieces the hook runs (node names).
struct SyncReplicasOps {
  std::string local_step_init_op;
  std::string chief_init_op;
  std::string sync_op;           // take, apply, hand out the next tokens
  std::string init_tokens_op;    // the first tokens ("" when there are none)
  std::string cancel_takes_op;   // releases the chief's waiting takes
  std::string close_queue_op;    // closes the token queue: waiting replicas stop (OUT_OF_RANGE)
  std::string token_queue_size;  // a tensor: tokens waiting
};

class SyncReplicasOptimizer {
 public:
  SyncReplicasOptimizer(std::shared_ptr<Optimizer> optimizer, SyncReplicasOptions options);

  // Gradients of `loss` (on the workers), then ApplyGradients.
  StatusOr<Output> Minimize(GraphBuilder& graph, const Output& loss, const Output& global_step,
                            std::vector<std::string> variables = {}, std::string_view name = "train");
  // INVALID_ARGUMENT without a global step ("Global step is required to check staleness").
  StatusOr<Output> ApplyGradients(GraphBuilder& graph, const std::vector<std::pair<Output, Output>>& grads_and_vars,
                                  const Output& global_step, std::string_view name = "train");

  // num_tokens < 0: replicas_to_aggregate tokens to start with. Call after ApplyGradients.
  StatusOr<std::shared_ptr<SessionRunHook>> MakeSessionRunHook(bool is_chief, int num_tokens = -1);

  const SyncReplicasOptions& options() const { return options_; }
  const SyncReplicasOps& graph_ops() const { return ops_; }

 private:
  std::shared_ptr<Optimizer> optimizer_;
  SyncReplicasOptions options_;
  SyncReplicasOps ops_;
  std::string token_queue_;
  std::string global_step_;
  bool applied_ = false;
  int tokens_per_step_ = 0;
};

}  // namespace clab
