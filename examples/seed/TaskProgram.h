// What every example program's task does the same way, as a TensorFlow 1.x program does it:
// start the task's server from the cluster; a ps joins it until Ctrl-C or SIGTERM; a worker
// runs its loop in a MonitoredTrainingSession on its own server's target (worker 0 is the
// chief), with log_device_placement, StopAtStepHook(last_step) and its hooks' lines and
// events published on the task's event stream, where the studio and `clab watch` see them.
#pragma once

#include "clab/core/Status.h"
#include "clab/distributed/ClusterSpec.h"
#include "clab/distributed/Server.h"
#include "clab/train/MonitoredSession.h"
#include "clab/train/SessionRunHook.h"

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace clab::examples {

struct TaskProgramOptions {
  ClusterSpec cluster;
  std::string job_name;  // "ps" or "worker"
  int task_index = 0;
  int64_t last_step = 200;  // StopAtStepHook(last_step=...)
  // Ends the worker's loop after this long (0: no limit).
  double max_seconds = 0;
  // The chief writes checkpoints and event files here ("" : none, as in the tutorial).
  std::string checkpoint_dir;
  // Where graphs run on this task's server may read files (none: the working directory);
  // the checkpoint directory is allowed too.
  std::vector<std::string> data_dirs;
  int64_t save_checkpoint_steps = 0;        // 0 with save_checkpoint_secs 0: TensorFlow's default of every 600 s
  double save_checkpoint_secs = 0;          // checkpoint every this many seconds (0: see above)
  bool fail_on_damaged_checkpoint = false;  // stop rather than restore the previous checkpoint
  // How long a worker waits for the ps before giving up (the server logs, every few
  // seconds, which task it is still waiting for).
  int64_t wait_for_ps_ms = 60000;
  // A worker started by the studio waits (up to this long) until the studio watches its
  // events before it starts, so that a short run loses none. 0: do not wait.
  int64_t wait_for_watcher_ms = 0;
  // Print each node's device, as TensorFlow does (the studio's placement table reads it).
  bool log_device_placement = true;
};

// Starts the task's server. A ps (any job but "worker") serves until SIGINT or SIGTERM and
// then returns null; a worker gets its server, after waiting for a watcher when asked to.
StatusOr<std::unique_ptr<Server>> StartTaskServer(const TaskProgramOptions& options, std::ostream& out);

// The worker's MonitoredTrainingSession options: its server's target, chief = task 0,
// log_device_placement as asked, StopAtStepHook(last_step), a stop after `max_seconds` (when > 0),
// the checkpoint settings, and a training log that publishes on the server's event stream.
MonitoredTrainingSessionOptions WorkerSessionOptions(const TaskProgramOptions& options, Server& server,
                                                     double max_seconds);

// Ends a run after a while (one that would otherwise never end).
class StopAfterSecondsHook final : public SessionRunHook {
 public:
  explicit StopAfterSecondsHook(double seconds) : seconds_(seconds) {}
  std::string name() const override { return "StopAfterSecondsHook"; }
  Status Begin(HookEnvironment& env) override;
  Status AfterCreateSession(Session&) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues&) override;

 private:
  const double seconds_;
  TrainingLog* log_ = nullptr;
  bool started_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace clab::examples
