#pragma once

#include "clab/train/SessionRunHook.h"

namespace clab {

// Requests a stop once the global step reaches `last_step` (or start + `num_steps`). It only
// reads the global step: if nothing increments it, it never stops — as in TensorFlow.
class StopAtStepHook : public SessionRunHook {
 public:
  static StopAtStepHook NumSteps(int64_t num_steps) { return StopAtStepHook(num_steps, -1); }
  static StopAtStepHook LastStep(int64_t last_step) { return StopAtStepHook(-1, last_step); }

  std::string name() const override { return "StopAtStepHook"; }
  Status Begin(HookEnvironment& env) override;
  Status AfterCreateSession(Session& session) override;
  StatusOr<SessionRunArgs> BeforeRun(SessionRunContext& context) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  int64_t last_step() const { return last_step_; }

 private:
  StopAtStepHook(int64_t num_steps, int64_t last_step) : num_steps_(num_steps), last_step_(last_step) {}
  int64_t num_steps_;
  int64_t last_step_;
  std::string global_step_;
};

}  // namespace clab
