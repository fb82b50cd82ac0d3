#include "clab/train/hooks/SummarySaverHook.h"

#include "clab/train/SummaryWriterCache.h"

namespace clab {

SummarySaverHook::SummarySaverHook(SecondOrStepTimer timer, std::string output_dir,
                                   std::map<std::string, std::string> scalars)
    : timer_(timer), output_dir_(std::move(output_dir)), scalars_(std::move(scalars)) {}

Status SummarySaverHook::Begin(HookEnvironment& env) {
  if (env.global_step_tensor.empty())
    return errors::FailedPrecondition("Global step should be created to use SummarySaverHook.");
  env_ = env;
  CLAB_ASSIGN_OR_RETURN(writer_, SummaryWriterFor(output_dir_));
  return OkStatus();
}

StatusOr<SessionRunArgs> SummarySaverHook::BeforeRun(SessionRunContext&) {
  SessionRunArgs args;
  args.fetches = {env_.global_step_tensor};
  requested_ = first_run_ || timer_.ShouldTriggerForStep(next_step_);
  if (requested_)
    for (const auto& [tag, name] : scalars_) args.fetches.push_back(name);
  return args;
}

Status SummarySaverHook::AfterRun(SessionRunContext&, const SessionRunValues& values) {
  const int64_t step = values.results[0].scalar<int64_t>();
  if (first_run_) {
    CLAB_RETURN_IF_ERROR(writer_->WriteSessionLog(step, tensorflow::SessionLog::START));
    first_run_ = false;
  }
  next_step_ = step + 1;
  if (!requested_) return OkStatus();
  timer_.UpdateLastTriggeredStep(step);
  std::map<std::string, float> scalars;
  size_t i = 1;
  for (const auto& [tag, name] : scalars_) {
    const Tensor& t = values.results[i++];
    if (t.NumElements() != 1 || !t.OnHost())
      return errors::InvalidArgument("Summary '", tag, "' from ", name, " is not a scalar: ", t.shape().DebugString());
    CLAB_SWITCH_POD_TYPES(t.dtype(), T, scalars[tag] = static_cast<float>(t.data<T>()[0]),
                          return errors::InvalidArgument("Summary '", tag, "' is not numeric"));
  }
  if (!scalars.empty()) CLAB_RETURN_IF_ERROR(writer_->WriteScalars(step, scalars));
  return OkStatus();
}

Status SummarySaverHook::End(Session&) { return writer_->Flush(); }

}  // namespace clab
