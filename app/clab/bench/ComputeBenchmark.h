// `clab bench compute`: what ClusterLab's engine costs on one machine without any RPC, each
// row next to its floor measured in the same run, interleaved:
//
//   mlp step     one training step of the digits MLP (64-hidden-10, batch 32) in a session
//                of this process, against the same maths written directly in Eigen
//                (bench/PlainEigenMlp), built with the same compiler flags;
//   matmul N     an N x N x N float32 MatMul in a session, against a bare Eigen contraction on
//                a thread pool of the same size as the engine's.
//
// Each round measures ClusterLab then the floor (the order swaps every round); a row's
// figures are medians over rounds. CPU time and context switches per step come from
// getrusage over the same stretch, so a rise in fixed cost shows without a profiler.
#pragma once

#include "clab/core/Status.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace clab::cli {

struct ComputeBenchmarkOptions {
  int rounds = 5;
  int64_t mlp_steps = 2000;  // per round and side
  int hidden = 128;
  int64_t matmul_size = 2048;
  int matmul_repeats = 5;  // per round and side
  std::function<void(const std::string&)> progress;
};

struct ComputeSide {
  double micros = 0;            // wall time per step, median over rounds
  double cpu_micros = 0;        // user + system CPU per step, same
  double context_switches = 0;  // voluntary + involuntary per step, same
};

struct ComputeRow {
  std::string name;
  ComputeSide engine;
  ComputeSide floor;
  double gflops = 0;        // engine, for MatMul rows
  double floor_gflops = 0;  // floor, for MatMul rows
  double target_ratio = 0;  // floor time / engine time the engine should reach
};

StatusOr<std::vector<ComputeRow>> RunComputeBenchmark(const ComputeBenchmarkOptions& options);

std::string FormatComputeTable(const std::vector<ComputeRow>& rows);

}  // namespace clab::cli
