#pragma once

#include "clab/train/SecondOrStepTimer.h"
#include "clab/train/SessionRunHook.h"

#include <memory>

namespace clab {

class Saver;
class EventFileWriter;

// Saves "model.ckpt-<step>" into a directory when the session is created, every N seconds
// or steps, and at the end; each save is logged, recorded in the event file and reported.
class CheckpointSaverHook : public SessionRunHook {
 public:
  CheckpointSaverHook(std::string checkpoint_dir, SecondOrStepTimer timer, std::shared_ptr<Saver> saver,
                      std::string basename = "model.ckpt");
  std::string name() const override { return "CheckpointSaverHook"; }
  Status Begin(HookEnvironment& env) override;
  Status AfterCreateSession(Session& session) override;
  StatusOr<SessionRunArgs> BeforeRun(SessionRunContext& context) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  Status End(Session& session) override;
  int saves() const { return saves_; }

 private:
  Status Save(Session& session, int64_t step);
  std::string dir_;
  SecondOrStepTimer timer_;
  std::shared_ptr<Saver> saver_;
  std::string basename_;
  HookEnvironment env_;
  std::shared_ptr<EventFileWriter> writer_;
  int64_t last_saved_step_ = -1;
  int saves_ = 0;
};

}  // namespace clab
