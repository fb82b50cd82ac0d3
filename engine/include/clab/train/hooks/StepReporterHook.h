// Reports training progress to the task's event stream: a StepEvent (global step, this
// session's step count, the run's duration) at most every `interval` and after the last run,
// so a watcher (the studio's live step counter) follows thousands of steps per second without
// being flooded. Added by MonitoredTrainingSession whenever the graph has a global step.
#pragma once

#include "clab/train/SessionRunHook.h"

#include <chrono>

namespace clab {

class StepReporterHook : public SessionRunHook {
 public:
  explicit StepReporterHook(std::chrono::milliseconds interval = std::chrono::milliseconds(100))
      : interval_(interval) {}
  std::string name() const override { return "StepReporterHook"; }
  Status Begin(HookEnvironment& env) override;
  StatusOr<SessionRunArgs> BeforeRun(SessionRunContext& context) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  Status End(Session& session) override;

 private:
  using Clock = std::chrono::steady_clock;
  void Report(bool finished);

  const std::chrono::milliseconds interval_;
  TrainingLog* log_ = nullptr;
  std::string global_step_tensor_;
  int64_t local_step_ = 0;
  int64_t global_step_ = -1;
  int64_t last_duration_us_ = 0;
  Clock::time_point run_started_;
  Clock::time_point last_report_;
  bool reported_last_ = true;
};

}  // namespace clab
