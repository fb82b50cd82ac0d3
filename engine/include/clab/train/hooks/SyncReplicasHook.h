// The session hook of SyncReplicasOptimizer (made by its MakeSessionRunHook). After every
// session creation it sets the worker's local step to the global step; on the chief it also
// tells the accumulators the current step, hands out the first tokens, and keeps the
// aggregation loop running on a thread with a session of its own. The loop survives a
// restarted ps (it reconnects and goes on) and ends when the hook ends: the chief releases
// the take its loop waits in, and joins the thread.
#pragma once

#include "clab/train/SessionRunHook.h"
#include "clab/train/SyncReplicasOptimizer.h"

#include <memory>
#include <thread>

namespace clab {

class SyncReplicasHook : public SessionRunHook {
 public:
  SyncReplicasHook(bool is_chief, SyncReplicasOps ops, SyncReplicasOptions options);
  ~SyncReplicasHook() override;

  std::string name() const override { return "SyncReplicasHook"; }
  Status Begin(HookEnvironment& env) override;
  Status AfterCreateSession(Session& session) override;
  Status End(Session& session) override;

  // Rounds the chief's loop has completed (aggregated updates applied); 0 on other workers.
  int64_t rounds() const;

 private:
  struct Loop;
  // The loop runs on `shared` (an in-process session, which End outlives) or, when null, on
  // a session of its own to the master.
  void StartLoop(Session* shared);
  void StopLoop(Session* session);

  const bool is_chief_;
  const SyncReplicasOps ops_;
  const SyncReplicasOptions options_;
  TrainingLog* log_ = nullptr;
  const tensorflow::GraphDef* graph_def_ = nullptr;
  std::string master_;
  tensorflow::ConfigProto config_;
  std::shared_ptr<Loop> loop_;
  std::thread thread_;
  int64_t rounds_done_ = 0;
};

}  // namespace clab
