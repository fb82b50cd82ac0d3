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
#include "seed/TaskProgram.h"

#include <cstdint>
#include <iosfwd>
#include <string>

namespace clab::examples {

// The tutorial's cluster with its addresses moved to this machine: the ps on port 2223, the
// worker on 2222 (the ports the tutorial uses), both on loopback.
inline constexpr const char* kSeedDefaultCluster = "ps=127.0.0.1:2223;worker=127.0.0.1:2222";

struct SeedProgramOptions : TaskProgramOptions {
  // Exactly the tutorial: no global step increment, so only max_seconds ends the run
  // (default 10 s for a faithful run).
  bool faithful = false;
};

// Runs one task to its end: a worker after its loop, a ps when SIGINT or SIGTERM arrives.
// Results go to `out`; the servers' log lines (placement, waiting) go to stdout and the
// hooks' lines to stderr, as TensorFlow prints them.
Status RunSeedProgram(const SeedProgramOptions& options, std::ostream& out);

}  // namespace clab::examples
