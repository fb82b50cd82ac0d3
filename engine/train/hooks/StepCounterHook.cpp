#include "clab/train/hooks/StepCounterHook.h"

#include "clab/train/SummaryWriterCache.h"

#include <cstdio>

namespace clab {

StepCounterHook::StepCounterHook(SecondOrStepTimer timer, std::string output_dir)
    : timer_(timer), output_dir_(std::move(output_dir)) {}

Status StepCounterHook::Begin(HookEnvironment& env) {
  if (env.global_step_tensor.empty())
    return errors::FailedPrecondition("Global step should be created to use StepCounterHook.");
  env_ = env;
  if (!output_dir_.empty()) {
    CLAB_ASSIGN_OR_RETURN(writer_, SummaryWriterFor(output_dir_));
  }
  return OkStatus();
}

StatusOr<SessionRunArgs> StepCounterHook::BeforeRun(SessionRunContext&) {
  SessionRunArgs args;
  args.fetches = {env_.global_step_tensor};
  return args;
}

Status StepCounterHook::AfterRun(SessionRunContext&, const SessionRunValues& values) {
  const int64_t step = values.results[0].scalar<int64_t>();
  if (step == last_seen_step_) {
    if (++stale_runs_ % kStaleRunsBeforeWarning == 0) {
      env_.log->Hook(name(), LogLevel::kWarning,
                     StrCat("It seems that global step (get_global_step) has not been increased. Current value "
                            "(could be stable): ",
                            step, " vs previous value: ", last_seen_step_,
                            ". You could increase the global step by passing the global step to "
                            "Optimizer::Minimize or ApplyGradients, or by running its increment with each step."),
                     {}, step);
    }
  } else {
    stale_runs_ = 0;
  }
  last_seen_step_ = step;
  if (!timer_.ShouldTriggerForStep(step)) return OkStatus();
  auto elapsed = timer_.UpdateLastTriggeredStep(step);
  if (!elapsed || elapsed->first <= 0) return OkStatus();
  const double rate = static_cast<double>(elapsed->second) / elapsed->first;
  char text[64];
  std::snprintf(text, sizeof(text), "global_step/sec: %g", rate);
  env_.log->Hook(name(), LogLevel::kInfo, text, {{"global_step/sec", rate}}, step);
  if (writer_) CLAB_RETURN_IF_ERROR(writer_->WriteScalars(step, {{"global_step/sec", static_cast<float>(rate)}}));
  return OkStatus();
}

}  // namespace clab
