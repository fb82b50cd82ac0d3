#include "clab/train/hooks/SummarySaverHook.h"

#include "clab/graph/Graph.h"
#include "clab/graph/GraphKeys.h"
#include "clab/ops/Ops.h"
#include "clab/train/SummaryWriterCache.h"

namespace clab {

SummarySaverHook::SummarySaverHook(SecondOrStepTimer timer, std::string output_dir,
                                   std::map<std::string, std::string> scalars)
    : timer_(timer), output_dir_(std::move(output_dir)), scalars_(std::move(scalars)) {}

Status SummarySaverHook::Begin(HookEnvironment& env) {
  if (env.global_step_tensor.empty())
    return errors::FailedPrecondition("Global step should be created to use SummarySaverHook.");
  env_ = env;
  // Each scalar gets its ScalarSummary node, as tf.summary.scalar(tag, tensor) adds one
  // ("<tag>" or "<tag>_1", with its "tags" constant), in the graph's "summaries" collection;
  // the hook writes what every node of that collection returns.
  if (env.graph != nullptr) {
    GraphBuilder& g = *env.graph;
    for (const auto& [tag, tensor] : scalars_) {
      auto id = TensorId::Parse(tensor);
      if (!id.ok() || id->index < 0)
        return errors::InvalidArgument("Summary '", tag, "': '", tensor, "' does not name a tensor");
      if (g.FindNode(id->node) == nullptr)
        return errors::NotFound("Summary '", tag, "': tensor ", tensor, " is not in the graph");
      auto scope = g.WithNameScope(tag);
      const std::string node = g.CurrentNameScope();
      Output tags = ops::Const(g, Tensor::Scalar<std::string>(tag), "tags");
      Output summary = g.AddNode("ScalarSummary", {tags, Output(id->node, id->index)}, {}, node + "/");
      g.AddToCollection(GraphKeys::kSummaries, summary.name());
    }
    CLAB_RETURN_IF_ERROR(g.status());
    summaries_ = g.Collection(GraphKeys::kSummaries);
  }
  CLAB_ASSIGN_OR_RETURN(writer_, SummaryWriterFor(output_dir_));
  return OkStatus();
}

StatusOr<SessionRunArgs> SummarySaverHook::BeforeRun(SessionRunContext&) {
  SessionRunArgs args;
  args.fetches = {env_.global_step_tensor};
  requested_ = first_run_ || timer_.ShouldTriggerForStep(next_step_);
  if (requested_) args.fetches.insert(args.fetches.end(), summaries_.begin(), summaries_.end());
  return args;
}

Status SummarySaverHook::AfterRun(SessionRunContext&, const SessionRunValues& values) {
  const int64_t step = values.results[0].scalar<int64_t>();
  if (first_run_) {
    CLAB_RETURN_IF_ERROR(writer_->WriteSessionLog(step, tensorflow::SessionLog::START));
    first_run_ = false;
  }
  next_step_ = step + 1;
  if (!requested_ || summaries_.empty()) return OkStatus();
  timer_.UpdateLastTriggeredStep(step);
  tensorflow::Event event;
  event.set_wall_time(WallTimeSeconds());
  event.set_step(step);
  for (size_t i = 0; i < summaries_.size(); ++i) {
    const Tensor& t = values.results[i + 1];
    if (t.dtype() != DT_STRING || t.NumElements() != 1)
      return errors::InvalidArgument("Summary tensor ", summaries_[i], " is not a serialised Summary");
    tensorflow::Summary part;
    if (!part.ParseFromString(t.data<std::string>()[0]))
      return errors::DataLoss("Summary tensor ", summaries_[i], " does not parse as a Summary");
    event.mutable_summary()->MergeFrom(part);
  }
  return writer_->WriteEvent(event);
}

Status SummarySaverHook::End(Session&) { return writer_->Flush(); }

}  // namespace clab
