#include "clab/train/hooks/StopAtStepHook.h"

#include "clab/train/hooks/SmallHooks.h"

namespace clab {

Status StopAtStepHook::Begin(HookEnvironment& env) {
  if (env.global_step_tensor.empty())
    return errors::FailedPrecondition("Global step should be created to use StopAtStepHook.");
  global_step_ = env.global_step_tensor;
  return OkStatus();
}

Status StopAtStepHook::AfterCreateSession(Session& session) {
  // With num_steps the end is fixed at the first session creation; a recovered session keeps it.
  if (last_step_ < 0) {
    CLAB_ASSIGN_OR_RETURN(int64_t start, ReadGlobalStep(session, global_step_));
    last_step_ = start + num_steps_;
  }
  return OkStatus();
}

StatusOr<SessionRunArgs> StopAtStepHook::BeforeRun(SessionRunContext&) {
  SessionRunArgs args;
  args.fetches = {global_step_};
  return args;
}

Status StopAtStepHook::AfterRun(SessionRunContext& context, const SessionRunValues& values) {
  // The fetched value may predate this step's increment, so the step that would reach the
  // end is confirmed with a fresh read before stopping.
  const int64_t expected = values.results[0].scalar<int64_t>() + 1;
  if (expected >= last_step_) {
    CLAB_ASSIGN_OR_RETURN(int64_t now, ReadGlobalStep(*context.session(), global_step_));
    if (now >= last_step_) context.request_stop();
  }
  return OkStatus();
}

}  // namespace clab
