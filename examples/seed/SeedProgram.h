// The seed program, distributed: one process per task, as the tutorial runs it.
//
//   ps task:      creates its server and joins it (until Ctrl-C or SIGTERM).
//   worker task:  creates its server, builds x, w and MatMul under replica_device_setter
//                 (variables on the ps, MatMul on the worker), opens a session on its own
//                 server's target with log_device_placement=True and prints the product
//                 once per step: [[20]].
//
// The body in SeedProgram.cpp follows the Python program line by line. `seed_distributed`
// and `clab example seed` are thin front ends to it; `clab demo` starts one of each.
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
  // The tutorial loops under StopAtStepHook(last_step=200), but its graph never increments
  // the global step, so it would never stop; this program runs a fixed number of steps.
  int64_t steps = 3;
  // How long a worker waits for the ps before giving up (the server logs, every few
  // seconds, which task it is still waiting for).
  int64_t wait_for_ps_ms = 60000;
};

// Runs one task to its end: a worker after its steps, a ps when SIGINT or SIGTERM arrives.
// Results go to `out`; the servers' log lines (placement, waiting) go to stdout.
Status RunSeedProgram(const SeedProgramOptions& options, std::ostream& out);

}  // namespace clab::examples
