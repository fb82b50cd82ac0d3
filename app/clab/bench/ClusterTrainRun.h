// One ClusterLab run of `clab bench train` on a cluster of processes, as a user's cluster
// runs: a ps (`clab server`) and N workers (`clab bench train-worker`, bench/TrainWorker),
// each its own process on free 127.0.0.1 ports. The workers prepare, say they are ready,
// and start together when this creates their start file; each reports its times and costs.
// CPU time and context switches per global step add up the workers' own (over their
// steps) and the ps's over the same stretch (/proc). Every process it started is stopped
// before it returns.
#pragma once

#include "bench/TrainRun.h"
#include "clab/core/Status.h"

#include <cstdint>
#include <functional>
#include <string>

namespace clab::cli {

struct ClusterTrainOptions {
  std::string clab_program;
  int workers = 1;
  int64_t steps = 3000;
  int hidden = 128;
  std::function<void(const std::string&)> progress;  // the processes' ids as they start
};

StatusOr<TrainRun> RunClusterTraining(const ClusterTrainOptions& options);

}  // namespace clab::cli
