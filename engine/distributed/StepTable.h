// The steps a worker holds state for, by step id. A step's rendezvous is made by whichever
// comes first, the master's RunGraph or a peer's RecvTensor, and dropped by CleanupGraph.
// Steps nobody cleans up (the master died, or a peer asked for a step that never ran here)
// are aborted and dropped some time after their last activity, so they neither leak nor
// keep a peer's RecvTensor waiting forever.
#pragma once

#include "clab/core/Mutex.h"
#include "clab/core/Status.h"
#include "distributed/StepRendezvous.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>

namespace clab {

class StepTable {
 public:
  using Clock = std::chrono::steady_clock;

  explicit StepTable(std::string task_name, std::chrono::milliseconds abandoned_after = std::chrono::seconds(60));
  ~StepTable();
  StepTable(const StepTable&) = delete;
  StepTable& operator=(const StepTable&) = delete;

  // The step's rendezvous, made on first use, held (never dropped) until the matching
  // Release: a run holds it while it runs, a peer's RecvTensor or a delivery from the master
  // while it puts its waiter or tensor in. ABORTED for a step already cleaned up: its tensors
  // are gone and a late caller must not wait for them.
  StatusOr<std::shared_ptr<StepRendezvous>> Acquire(int64_t step_id);
  // Ends a hold. A step nobody holds whose rendezvous is idle (nothing waits in it) left
  // nothing behind here: it is forgotten at once, without waiting for a CleanupGraph.
  void Release(int64_t step_id);

  // Drops the step's state; anything still waiting on it fails.
  void Cleanup(int64_t step_id);
  // Aborts the step (a peer cancelled its RecvTensor, so the step failed there).
  void Abort(int64_t step_id, const Status& status);
  void AbortAll(const Status& status);

  void SetAbandonedTimeout(std::chrono::milliseconds timeout);
  size_t size() const;
  // The abort's status of a step this table holds; OK for one running, or not held.
  Status AbortStatus(int64_t step_id) const;

 private:
  struct Entry {
    std::shared_ptr<StepRendezvous> rendezvous;
    int holds = 0;  // runs in flight, and callers between Acquire and Release
    Clock::time_point last_activity;
  };

  void ReapLoop() ABSL_LOCKS_EXCLUDED(mu_);
  void ReapOnce(Clock::time_point now) ABSL_LOCKS_EXCLUDED(mu_);

  const std::string task_name_;
  mutable Mutex mu_;
  CondVar wake_reaper_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::chrono::milliseconds abandoned_after_ ABSL_GUARDED_BY(mu_);
  std::unordered_map<int64_t, Entry> steps_ ABSL_GUARDED_BY(mu_);
  // Steps cleaned up recently, so that a straggling RecvTensor fails instead of making the
  // step anew and waiting.
  std::unordered_map<int64_t, Clock::time_point> cleaned_up_ ABSL_GUARDED_BY(mu_);
  std::thread reaper_;
};

}  // namespace clab
