#include "clab/train/hooks/StepReporterHook.h"

namespace clab {

Status StepReporterHook::Begin(HookEnvironment& env) {
  log_ = env.log;
  global_step_tensor_ = env.global_step_tensor;
  return OkStatus();
}

StatusOr<SessionRunArgs> StepReporterHook::BeforeRun(SessionRunContext&) {
  run_started_ = Clock::now();
  SessionRunArgs args;
  if (!global_step_tensor_.empty()) args.fetches.push_back(global_step_tensor_);
  return args;
}

Status StepReporterHook::AfterRun(SessionRunContext&, const SessionRunValues& values) {
  const Clock::time_point now = Clock::now();
  ++local_step_;
  last_duration_us_ = std::chrono::duration_cast<std::chrono::microseconds>(now - run_started_).count();
  // The value read during the run, before this run's increment (as StepCounterHook sees it).
  if (!values.results.empty()) global_step_ = values.results[0].scalar<int64_t>();
  reported_last_ = false;
  if (now - last_report_ >= interval_) {
    last_report_ = now;
    Report(false);
  }
  return OkStatus();
}

Status StepReporterHook::End(Session& session) {
  if (!global_step_tensor_.empty()) {
    std::vector<Tensor> step;
    if (session.Run({}, {global_step_tensor_}, {}, &step).ok()) global_step_ = step.at(0).scalar<int64_t>();
  }
  Report(true);
  return OkStatus();
}

void StepReporterHook::Report(bool finished) {
  if (log_ == nullptr) return;
  reported_last_ = true;
  TaskEvent event;
  StepEvent* step = event.mutable_step();
  step->set_global_step(global_step_);
  step->set_local_step(local_step_);
  step->set_duration_us(last_duration_us_);
  step->set_finished(finished);
  log_->Emit(std::move(event));
}

}  // namespace clab
