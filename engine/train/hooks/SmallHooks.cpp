#include "clab/train/hooks/SmallHooks.h"

#include "clab/train/ChromeTrace.h"

#include <filesystem>
#include <fstream>
#include <thread>

namespace clab {

StatusOr<int64_t> ReadGlobalStep(Session& session, const std::string& global_step_tensor) {
  std::vector<Tensor> out;
  CLAB_RETURN_IF_ERROR(session.Run({}, {global_step_tensor}, {}, &out));
  if (out.size() != 1 || out[0].dtype() != DT_INT64 || out[0].NumElements() != 1)
    return errors::InvalidArgument("The global step ", global_step_tensor, " is not an int64 scalar");
  return out[0].scalar<int64_t>();
}

Status GlobalStepWaiterHook::Begin(HookEnvironment& env) {
  if (env.global_step_tensor.empty())
    return errors::FailedPrecondition("Global step should be created to use GlobalStepWaiterHook.");
  env_ = env;
  return OkStatus();
}

StatusOr<SessionRunArgs> GlobalStepWaiterHook::BeforeRun(SessionRunContext& context) {
  if (done_ || wait_until_step_ <= 0) return SessionRunArgs{};
  env_.log->Hook(name(), LogLevel::kInfo,
                 StrCat("Waiting for global step ", wait_until_step_, " before starting training."));
  int64_t last_logged = -1;
  while (true) {
    CLAB_ASSIGN_OR_RETURN(int64_t step, ReadGlobalStep(*context.session(), env_.global_step_tensor));
    if (step >= wait_until_step_) break;
    if (last_logged < 0 || step - last_logged > 1000) {
      env_.log->Hook(name(), LogLevel::kInfo,
                     StrCat("Waiting for global step ", wait_until_step_, " before starting training. Current step is ",
                            step, "."),
                     {}, step);
      last_logged = step;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  done_ = true;
  return SessionRunArgs{};
}

Status FinalOpsHook::End(Session& session) {
  values_.clear();
  Status s = session.Run(feeds_, final_ops_, {}, &values_);
  if (absl::IsOutOfRange(s)) return errors::Annotate(s, "The final ops depend on the input, which is exhausted: ");
  return s;
}

StatusOr<SessionRunArgs> FeedFnHook::BeforeRun(SessionRunContext&) {
  SessionRunArgs args;
  args.feeds = feed_fn_();
  return args;
}

Status ProfilerHook::Begin(HookEnvironment& env) {
  if (env.global_step_tensor.empty())
    return errors::FailedPrecondition("Global step should be created to use ProfilerHook.");
  env_ = env;
  return OkStatus();
}

StatusOr<SessionRunArgs> ProfilerHook::BeforeRun(SessionRunContext&) {
  SessionRunArgs args;
  args.fetches = {env_.global_step_tensor};
  requested_ = timer_.ShouldTriggerForStep(next_step_);
  if (requested_) args.options.set_trace_level(tensorflow::RunOptions::FULL_TRACE);
  return args;
}

Status ProfilerHook::AfterRun(SessionRunContext& context, const SessionRunValues& values) {
  const int64_t step = values.results[0].scalar<int64_t>();
  next_step_ = step + 1;
  if (!requested_ || values.run_metadata == nullptr) return OkStatus();
  timer_.UpdateLastTriggeredStep(step);
  std::error_code ec;
  std::filesystem::create_directories(output_dir_, ec);
  const std::string path = (std::filesystem::path(output_dir_) / StrCat("timeline-", step, ".json")).string();
  env_.log->Hook(name(), LogLevel::kInfo, StrCat("Saving timeline for ", step, " into '", path, "'."), {}, step);
  std::ofstream out(path, std::ios::trunc);
  out << StepStatsToChromeTrace(values.run_metadata->step_stats());
  if (!out) return errors::Internal("Cannot write the timeline ", path);
  ++traces_;
  return OkStatus();
}

}  // namespace clab
