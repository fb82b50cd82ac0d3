#include "clab/train/SyncReplicasOptimizer.h"

#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphKeys.h"
#include "clab/ops/Ops.h"
#include "clab/train/Gradients.h"
#include "clab/train/hooks/SyncReplicasHook.h"

#include <algorithm>

namespace clab {
namespace {

Output Int64Fill(GraphBuilder& g, int count, const Output& value, std::string_view name) {
  return ops::Fill(g, ops::Const(g, Tensor::Vector<int32_t>({count})), value, name);
}

}  // namespace

SyncReplicasOptimizer::SyncReplicasOptimizer(std::shared_ptr<Optimizer> optimizer, SyncReplicasOptions options)
    : optimizer_(std::move(optimizer)), options_(std::move(options)) {
  if (options_.total_num_replicas < 0) options_.total_num_replicas = options_.replicas_to_aggregate;
  tokens_per_step_ = std::max(options_.total_num_replicas, options_.replicas_to_aggregate);
}

StatusOr<Output> SyncReplicasOptimizer::Minimize(GraphBuilder& g, const Output& loss, const Output& global_step,
                                                 std::vector<std::string> variables, std::string_view name) {
  CLAB_ASSIGN_OR_RETURN(auto pairs, Optimizer::ComputeGradients(g, loss, std::move(variables)));
  return ApplyGradients(g, pairs, global_step, name);
}

StatusOr<Output> SyncReplicasOptimizer::ApplyGradients(GraphBuilder& g,
                                                       const std::vector<std::pair<Output, Output>>& grads_and_vars,
                                                       const Output& global_step, std::string_view name) {
  if (!global_step.valid()) return errors::InvalidArgument("Global step is required to check staleness");
  if (applied_) return errors::FailedPrecondition("SyncReplicasOptimizer.ApplyGradients may be called only once");
  if (options_.replicas_to_aggregate < 1)
    return errors::InvalidArgument("replicas_to_aggregate must be at least 1, got ", options_.replicas_to_aggregate);
  const std::string global_step_read =
      g.FindNode(global_step.node() + "/read") != nullptr ? global_step.node() + "/read" : global_step.node();
  global_step_ = global_step.node();

  // The worker's local step: which global step its gradients are computed from. A local
  // variable on the worker (colocated with a no-op there), left out of "variables" so that the
  // chief does not initialise it and a waiting worker does not wait for it.
  Output local_step, local_step_read;
  {
    auto root = g.WithNameScope("");
    Output anchor = ops::NoOp(g, {}, "sync_rep_local_anchor");
    auto on_worker = g.ColocateWith(anchor);
    local_step = ops::VariableV2(g, PartialShape::Scalar(), DT_INT64, "sync_rep_local_step");
    local_step_read = ops::Identity(g, local_step, "sync_rep_local_step/read");
    ops_.local_step_init_op = ops::Assign(g, local_step, Output(global_step_read), "sync_rep_local_step/init").node();
    g.AddToCollection(GraphKeys::kLocalVariables, local_step.node());
  }

  auto scope = g.WithNameScope(options_.name);
  std::vector<Output> applies;
  std::vector<std::pair<Output, Output>> aggregated;
  std::vector<Output> set_steps, cancels;
  for (const auto& [grad, var] : grads_and_vars) {
    if (!grad.valid()) continue;
    auto on_ps = g.ColocateWith(var);
    const tensorflow::NodeDef* node = g.FindNode(var.node());
    if (node == nullptr) return errors::NotFound("variable '", var.node(), "' is not in the graph");
    DataType dtype = DT_INVALID;
    PartialShape shape;
    CLAB_RETURN_IF_ERROR(GetNodeAttr(*node, "dtype", &dtype));
    CLAB_RETURN_IF_ERROR(GetNodeAttr(*node, "shape", &shape));
    Output accumulator = ops::ConditionalAccumulator(g, dtype, shape, var.node() + "/grad_accum");
    applies.push_back(ops::AccumulatorApplyGradient(g, accumulator, local_step_read, grad).control());
    Output required = ops::Const(g, Tensor::Scalar<int32_t>(options_.replicas_to_aggregate));
    aggregated.emplace_back(ops::AccumulatorTakeGradient(g, accumulator, required, dtype), var);
    set_steps.push_back(ops::AccumulatorSetGlobalStep(g, accumulator, Output(global_step_read)).control());
    cancels.push_back(g.AddNode("_AccumulatorCancelTakes", {accumulator}).control());
  }
  if (applies.empty()) return errors::FailedPrecondition("SyncReplicasOptimizer: no gradient to apply");

  Output token_queue;
  {
    auto on_global_step = g.ColocateWith(global_step);
    token_queue = ops::FIFOQueue(g, {DT_INT64}, {PartialShape::Scalar()}, -1, "sync_token_q", "sync_token_q");
    token_queue_ = token_queue.node();
    ops_.token_queue_size = ops::QueueSize(g, token_queue, "sync_token_q_size").name();
    ops_.close_queue_op =
        ops::QueueClose(g, token_queue, /*cancel_pending_enqueues=*/true, "sync_token_q_Close").node();
    // The chief's round: the mean gradients through the wrapped optimizer (which increments
    // the global step), then one token per replica carrying the new step.
    CLAB_ASSIGN_OR_RETURN(Output update, optimizer_->ApplyGradients(g, aggregated, global_step, "update"));
    auto after_update = g.WithControlDependencies({update.control()});
    Output new_step = ops::Identity(g, global_step, "new_global_step");
    ops_.sync_op =
        ops::QueueEnqueueMany(g, token_queue, {Int64Fill(g, tokens_per_step_, new_step, "tokens")}, "sync_op").node();
  }
  {
    auto on_global_step = g.ColocateWith(global_step);
    const int first_tokens = options_.replicas_to_aggregate;
    Output now = ops::Identity(g, global_step, "init_tokens_step");
    ops_.init_tokens_op =
        ops::QueueEnqueueMany(g, token_queue, {Int64Fill(g, first_tokens, now, "init_tokens")}, "init_tokens").node();
  }
  std::vector<Output> chief_init = set_steps;
  chief_init.push_back(Output(ops_.local_step_init_op).control());
  ops_.chief_init_op = ops::NoOp(g, chief_init, "chief_init_op").node();
  ops_.cancel_takes_op = ops::NoOp(g, cancels, "cancel_takes").node();

  // The replica's step: its gradients into the accumulators, then wait for a token and take
  // the step it names as the new local step.
  Output train;
  {
    auto after_applies = g.WithControlDependencies(applies);
    Output token = [&] {
      auto on_queue = g.ColocateWith(token_queue);
      return ops::QueueDequeue(g, token_queue, {DT_INT64}, "sync_token_q_Dequeue").front();
    }();
    auto root = g.WithNameScope("");
    Output assign = [&] {
      auto on_worker = g.ColocateWith(local_step);
      return ops::Assign(g, local_step, token, "sync_rep_local_step/update");
    }();
    train = ops::NoOp(g, {assign.control()}, name);
  }
  CLAB_RETURN_IF_ERROR(g.status());
  g.AddToCollection(GraphKeys::kTrainOp, train.node());
  applied_ = true;
  return train;
}

StatusOr<std::shared_ptr<SessionRunHook>> SyncReplicasOptimizer::MakeSessionRunHook(bool is_chief, int num_tokens) {
  if (!applied_)
    return errors::FailedPrecondition(
        "SyncReplicasOptimizer.ApplyGradients (or Minimize) should be called before "
        "making its session hook");
  SyncReplicasOps ops = ops_;
  if (num_tokens == 0) ops.init_tokens_op.clear();
  if (num_tokens > 0 && num_tokens != options_.replicas_to_aggregate)
    return errors::Unimplemented("num_tokens other than replicas_to_aggregate (", options_.replicas_to_aggregate,
                                 ") or 0; got ", num_tokens);
  return std::shared_ptr<SessionRunHook>(std::make_shared<SyncReplicasHook>(is_chief, ops, options_));
}

}  // namespace clab
