#pragma once

#include "clab/train/SecondOrStepTimer.h"
#include "clab/train/SessionRunHook.h"

#include <memory>

namespace clab {

class EventFileWriter;

// Logs "global_step/sec: X" (and writes it to the event file when given a directory), and
// warns when the global step stops increasing — the seed program's trap.
class StepCounterHook : public SessionRunHook {
 public:
  explicit StepCounterHook(SecondOrStepTimer timer, std::string output_dir = "");
  std::string name() const override { return "StepCounterHook"; }
  Status Begin(HookEnvironment& env) override;
  StatusOr<SessionRunArgs> BeforeRun(SessionRunContext& context) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  // Consecutive runs without a change of the global step that trigger the warning.
  static constexpr int kStaleRunsBeforeWarning = 20;

 private:
  SecondOrStepTimer timer_;
  std::string output_dir_;
  HookEnvironment env_;
  std::shared_ptr<EventFileWriter> writer_;
  int64_t last_seen_step_ = -1;
  int stale_runs_ = 0;
};

}  // namespace clab
