// `clab bench train`: the digits MLP (64-H-10, ReLU, softmax cross-entropy, minibatches of
// 32, plain gradient descent at 0.1) trained asynchronously for a fixed number of global
// steps by 1 ps and N workers, each task a process of its own over loopback
// (bench/ClusterTrainRun), beside the PyTorch peer doing the same in the same run
// (bench/TorchPeer, benchmarks/torch_ps.py) and the same steps in this process without RPC
// (the local row). Every round runs the local training, then for each worker count
// ClusterLab and the peer one after the other (the order swaps every round); figures are
// medians over rounds.
#pragma once

#include "bench/TrainRun.h"
#include "clab/core/Status.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace clab::cli {

struct TrainBenchmarkOptions {
  std::string clab_program;  // runs the ps and the workers
  std::vector<int> worker_counts = {1, 2, 4};
  int64_t steps = 3000;
  int hidden = 128;
  int rounds = 5;
  bool peer = true;          // run the PyTorch peer
  std::string python;        // empty: python3 on PATH, then /usr/bin/python3
  std::string torch_script;  // benchmarks/torch_ps.py
  std::function<void(const std::string&)> progress;
};

struct TrainRow {
  int workers = 0;  // 0: the local row (one process, no RPC)
  TrainRun clab;    // medians over rounds
  bool has_peer = false;
  TrainRun peer;  // same, when the peer ran
};

struct TrainBenchmarkResult {
  std::vector<TrainRow> rows;
  std::string peer_note;  // why the peer did not run, or which torch it was
};

StatusOr<TrainBenchmarkResult> RunTrainBenchmark(const TrainBenchmarkOptions& options);

std::string FormatTrainTable(const TrainBenchmarkResult& result);

}  // namespace clab::cli
