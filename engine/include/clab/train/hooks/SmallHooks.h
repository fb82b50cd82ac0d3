// Hooks with a single small duty each.
#pragma once

#include "clab/train/SecondOrStepTimer.h"
#include "clab/train/SessionRunHook.h"

#include <functional>

namespace clab {

// Holds a worker back until the global step reaches `wait_until_step` (staggered start).
class GlobalStepWaiterHook : public SessionRunHook {
 public:
  explicit GlobalStepWaiterHook(int64_t wait_until_step) : wait_until_step_(wait_until_step) {}
  std::string name() const override { return "GlobalStepWaiterHook"; }
  Status Begin(HookEnvironment& env) override;
  StatusOr<SessionRunArgs> BeforeRun(SessionRunContext& context) override;

 private:
  int64_t wait_until_step_;
  HookEnvironment env_;
  bool done_ = false;
};

// Runs `final_ops` once at the end; their values are kept for the caller.
class FinalOpsHook : public SessionRunHook {
 public:
  explicit FinalOpsHook(std::vector<std::string> final_ops, FeedList feeds = {})
      : final_ops_(std::move(final_ops)), feeds_(std::move(feeds)) {}
  std::string name() const override { return "FinalOpsHook"; }
  Status End(Session& session) override;
  const std::vector<Tensor>& final_ops_values() const { return values_; }

 private:
  std::vector<std::string> final_ops_;
  FeedList feeds_;
  std::vector<Tensor> values_;
};

// Adds the feeds `feed_fn` returns to every run.
class FeedFnHook : public SessionRunHook {
 public:
  explicit FeedFnHook(std::function<FeedList()> feed_fn) : feed_fn_(std::move(feed_fn)) {}
  std::string name() const override { return "FeedFnHook"; }
  StatusOr<SessionRunArgs> BeforeRun(SessionRunContext& context) override;

 private:
  std::function<FeedList()> feed_fn_;
};

// Traces one run every N steps or seconds and writes it as Chrome trace JSON
// ("<output_dir>/timeline-<step>.json").
class ProfilerHook : public SessionRunHook {
 public:
  ProfilerHook(SecondOrStepTimer timer, std::string output_dir) : timer_(timer), output_dir_(std::move(output_dir)) {}
  std::string name() const override { return "ProfilerHook"; }
  Status Begin(HookEnvironment& env) override;
  StatusOr<SessionRunArgs> BeforeRun(SessionRunContext& context) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  int traces_written() const { return traces_; }

 private:
  SecondOrStepTimer timer_;
  std::string output_dir_;
  HookEnvironment env_;
  bool requested_ = false;
  int64_t next_step_ = 0;
  int traces_ = 0;
};

// Reads the global step with its own run (hooks re-read it after a run, as TensorFlow does).
StatusOr<int64_t> ReadGlobalStep(Session& session, const std::string& global_step_tensor);

}  // namespace clab
