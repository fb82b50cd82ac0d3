// Runs a project's program for real, as `clab example` runs it: one process per task (the ps
// serving, each worker training for a while), over loopback or with each task in a namespace
// of a ShapedNetwork, and measures what the simulator predicts. Each worker's progress comes
// from its own lines as they arrive (the seed program prints every step; a training program
// logs its loss every 10 steps); the processes' CPU time from /proc.
//
// The measured window starts once every worker has made a few steps and ends when the first
// stops; it is cut in five parts, and the rates are the median part's.
#pragma once

#include "clab/core/Status.h"
#include "sim/ShapedNetwork.h"

#include <string>
#include <vector>

namespace clab::cli {

struct RealRunOptions {
  std::string clab;     // the `clab` executable
  std::string program;  // "seed" or a training model ("digits-mlp")
  int workers = 1;
  int ps = 1;
  bool sync = false;
  double seconds = 5;  // how long each worker trains
  // With a network, task i (ps first, then workers) runs in its namespace i; without, on
  // loopback.
  const ShapedNetwork* network = nullptr;
};

struct RealRunResult {
  double total_steps_per_second = 0;            // the median part's, summed over the workers
  std::vector<double> worker_steps_per_second;  // over the whole window
  double window_seconds = 0;
  double worker_cpu_per_step = 0;  // CPU seconds a worker's process spends per step it makes
  double ps_cpu_per_step = 0;      // CPU seconds of the ps processes per step of any worker
  // Cores busy during the window: the tasks, this process (its readers), everything.
  double tasks_cores = 0;
  double self_cores = 0;
  double machine_cores = 0;
  std::string note;  // a worker that ended the measurement early, and how
};

StatusOr<RealRunResult> RunRealCluster(const RealRunOptions& options);

}  // namespace clab::cli
