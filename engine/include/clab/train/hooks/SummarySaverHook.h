#pragma once

#include "clab/train/SecondOrStepTimer.h"
#include "clab/train/SessionRunHook.h"

#include <map>
#include <memory>

namespace clab {

class EventFileWriter;

// Writes scalars (tag -> tensor name) to the event file every N steps or seconds, and a
// SessionLog START on the first run, for TensorBoard.
class SummarySaverHook : public SessionRunHook {
 public:
  SummarySaverHook(SecondOrStepTimer timer, std::string output_dir, std::map<std::string, std::string> scalars);
  std::string name() const override { return "SummarySaverHook"; }
  Status Begin(HookEnvironment& env) override;
  StatusOr<SessionRunArgs> BeforeRun(SessionRunContext& context) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  Status End(Session& session) override;

 private:
  SecondOrStepTimer timer_;
  std::string output_dir_;
  std::map<std::string, std::string> scalars_;
  HookEnvironment env_;
  std::shared_ptr<EventFileWriter> writer_;
  bool first_run_ = true;
  bool requested_ = false;
  int64_t next_step_ = 0;  // the step the next run is expected to reach
};

}  // namespace clab
