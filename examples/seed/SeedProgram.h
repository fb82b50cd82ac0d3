// The seed program, distributed: one process per task, as the tutorial runs it.
//
//   ps task:      creates its server and joins it (until Ctrl-C or SIGTERM).
//   worker task:  creates its server, builds x, w and MatMul under replica_device_setter
//                 (variables on the ps, MatMul on the worker), and runs them in a
//                 MonitoredTrainingSession on its own server's target, with
//                 log_device_placement=True and StopAtStepHook(last_step=200), printing the
//                 product once per step: [[20]]. Worker 0 is the chief: it initialises (or
//                 restores) the variables; other workers wait until the model is ready.
//
// Nothing in the tutorial's graph increments the global step, so as written it never stops.
// `faithful` runs it exactly so (bounded by max_seconds; the step counter warns that the
// global step is not increasing). By default the global step increment runs with each step,
// so the program stops at step 200, and says so.
//
// The body in SeedProgram.cpp follows the Python program line by line. `seed_distributed`
// and `clab example seed` are thin front ends to it; `clab demo` starts one of each task.
#pragma once

#include "clab/core/Status.h"
#include "clab/distributed/ClusterSpec.h"

#include <cstdint>
#include <iosfwd>
#include <string>

namespace clab::examples {

// The tutorial's cluster with its addresses moved to this machine: the ps on port 2223, the
// worker on 2222 (the ports the tutorial uses), both on loopback.
inline constexpr const char* kSeedDefaultCluster = "ps=127.0.0.1:2223;worker=127.0.0.1:2222";

struct SeedProgramOptions {
  ClusterSpec cluster;
  std::string job_name;  // "ps" or "worker"
  int task_index = 0;
  int64_t last_step = 200;  // StopAtStepHook(last_step=200)
  // Exactly the tutorial: no global step increment, so only max_seconds ends the run.
  bool faithful = false;
  // Ends the worker's loop after this long (0: no limit; faithful runs default to 10 s).
  double max_seconds = 0;
  // The chief writes checkpoints and event files here ("" : none, as in the tutorial).
  std::string checkpoint_dir;
  int64_t save_checkpoint_steps = 0;  // 0: TensorFlow's default of every 600 s
  // How long a worker waits for the ps before giving up (the server logs, every few
  // seconds, which task it is still waiting for).
  int64_t wait_for_ps_ms = 60000;
  // A worker started by the studio waits (up to this long) until the studio watches its
  // events before it starts, so that a short run loses none. 0: do not wait.
  int64_t wait_for_watcher_ms = 0;
};

// Runs one task to its end: a worker after its loop, a ps when SIGINT or SIGTERM arrives.
// Results go to `out`; the servers' log lines (placement, waiting) go to stdout and the
// hooks' lines to stderr, as TensorFlow prints them.
Status RunSeedProgram(const SeedProgramOptions& options, std::ostream& out);

}  // namespace clab::examples
