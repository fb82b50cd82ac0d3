// `clab bench step`: what one step of the seed program and one pull of a variable cost on a
// real two-process cluster over loopback, each next to the floor measured in the same run
// (a bare gRPC call carrying the same bytes to the same ps process).
//
//   ps process      `clab server` holding x, w (the seed) and one float32 variable per size
//   this process    the worker's server and a session on its in-process master, as the
//                   seed program's worker runs it
//
// Each mode pins both processes ("one core": both on CPU 0; "two cores": CPU 0 and CPU 1);
// within a repeat the runtime and the floor alternate, and medians are taken over repeats.
#pragma once

#include "clab/core/Status.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace clab::cli {

struct StepBenchmarkOptions {
  std::string clab_program;                                   // the `clab` executable that runs the ps
  std::vector<std::string> modes;                             // "one-core", "two-cores", "unpinned"
  std::vector<int64_t> pull_sizes = {1000, 100000, 1000000};  // float32 elements
  int repeats = 5;
  int iterations = 400;                              // per repeat for the small calls; fewer for big pulls
  std::function<void(const std::string&)> progress;  // one line per finished measurement
};

struct BenchmarkRow {
  std::string mode;
  std::string name;           // "seed step", "pull 1000 floats"
  int64_t payload_bytes = 0;  // what the floor call carries
  double median_us = 0;       // the runtime's median latency, median over repeats
  double floor_us = 0;        // the bare gRPC call's, same
  double ratio = 0;           // median_us / floor_us
  double target_ratio = 0;    // 0: no target
  double per_second = 0;      // 1e6 / median_us
};

StatusOr<std::vector<BenchmarkRow>> RunStepBenchmark(const StepBenchmarkOptions& options);

// The table `clab bench step` prints, and the same rows as JSON.
std::string FormatBenchmarkTable(const std::vector<BenchmarkRow>& rows);
std::string BenchmarkRowsToJson(const std::vector<BenchmarkRow>& rows);

}  // namespace clab::cli
