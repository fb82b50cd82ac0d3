// `clab bench step`: what one step of the seed program and one pull of a variable cost on a
// real two-process cluster over loopback, each next to the floor measured in the same run:
// the same bytes through a plain synchronous gRPC service in a minimal server process of its
// own (bench/FloorService, `clab bench floor-server`).
//
//   ps process      `clab server` holding x, w (the seed) and one float32 variable per size
//   floor process   `clab bench floor-server`: Echo and Fetch, nothing else
//   this process    the worker's server and a session on its in-process master, as the
//                   seed program's worker runs it; the floor's client
//
// Rows: the seed step against a 16-byte Echo (the size of w); each pull against a Fetch of
// the same bytes. Each mode pins the processes ("one-core": all on CPU 0; "two-cores": this
// process on CPU 0, the servers on CPU 1). Every round measures each row's runtime and floor
// one after the other (the order swaps every round); a figure is the median over rounds of
// the per-round median latency. CPU time and context switches per call cover this process
// and the server process the call goes to.
#pragma once

#include "bench/CostMeter.h"
#include "clab/core/Status.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace clab::cli {

struct StepBenchmarkOptions {
  std::string clab_program;        // the `clab` executable that runs the ps and the floor server
  std::vector<std::string> modes;  // "one-core", "two-cores", "unpinned"
  // float32 elements: 1 KiB, 64 KiB, 4 MiB
  std::vector<int64_t> pull_sizes = {256, 16384, 1048576};
  int rounds = 5;
  int steps = 400;  // calls per round for the step and small pulls; fewer for big pulls
  std::function<void(const std::string&)> progress;  // one line per event worth telling
};

struct BenchmarkRow {
  std::string mode;
  std::string name;           // "seed step", "pull 64 KiB"
  int64_t payload_bytes = 0;  // what the floor call carries
  double median_us = 0;       // the runtime's median latency, median over rounds
  double floor_us = 0;        // the plain gRPC call's, same
  double ratio = 0;           // median_us / floor_us
  double target_ratio = 0;    // 0: no target
  double per_second = 0;      // 1e6 / median_us
  StepCost cost;              // the runtime's CPU and switches per call (this process + ps)
  StepCost floor_cost;        // the floor's (this process + floor server)
};

StatusOr<std::vector<BenchmarkRow>> RunStepBenchmark(const StepBenchmarkOptions& options);

}  // namespace clab::cli
