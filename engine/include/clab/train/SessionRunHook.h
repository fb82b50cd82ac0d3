// Hooks into a monitored session's life, with TensorFlow's call order:
//   Begin (graph still open) -> AfterCreateSession (after every (re)creation)
//   -> for each run: BeforeRun (extra fetches/feeds) -> the run -> AfterRun (their values)
//   -> End (on a clean close only).
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/runtime/Session.h"
#include "clab/train/TrainingEvents.h"
#include "tensorflow/config.pb.h"

#include <string>
#include <vector>

namespace clab {

struct SessionRunArgs {
  std::vector<std::string> fetches;  // tensor names
  FeedList feeds;
  tensorflow::RunOptions options;  // merged across hooks (max trace level and timeout)
};

struct SessionRunValues {
  std::vector<Tensor> results;  // one per requested fetch, in order
  tensorflow::RunOptions options;
  const tensorflow::RunMetadata* run_metadata = nullptr;
};

class SessionRunContext {
 public:
  SessionRunContext(SessionRunArgs original_args, Session* session)
      : original_args_(std::move(original_args)), session_(session) {}
  const SessionRunArgs& original_args() const { return original_args_; }
  Session* session() const { return session_; }
  // Only sets a flag: this run's results are still returned; should_stop() turns true.
  void request_stop() { stop_requested_ = true; }
  bool stop_requested() const { return stop_requested_; }

 private:
  SessionRunArgs original_args_;
  Session* session_;
  bool stop_requested_ = false;
};

// What hooks may use besides the session: the graph while it is open (Begin only) and the
// training log that carries their output to people and to the studio.
struct HookEnvironment {
  GraphBuilder* graph = nullptr;  // null after Begin
  TrainingLog* log = nullptr;
  std::string global_step_tensor;  // "global_step/read:0", empty without a global step
  // The finished graph; filled once the graph is finalised (valid from AfterCreateSession).
  const tensorflow::GraphDef* graph_def = nullptr;
  // Where the monitored session connects, for hooks that run a session of their own.
  std::string master;
  tensorflow::ConfigProto config;
};

class SessionRunHook {
 public:
  virtual ~SessionRunHook() = default;
  virtual std::string name() const = 0;
  virtual Status Begin(HookEnvironment& env) { return OkStatus(); }
  virtual Status AfterCreateSession(Session& session) { return OkStatus(); }
  virtual StatusOr<SessionRunArgs> BeforeRun(SessionRunContext& context) { return SessionRunArgs{}; }
  virtual Status AfterRun(SessionRunContext& context, const SessionRunValues& values) { return OkStatus(); }
  virtual Status End(Session& session) { return OkStatus(); }
};

}  // namespace clab
