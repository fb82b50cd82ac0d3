// What one training run of `clab bench train` gave, whoever ran it (ClusterLab in one
// process, ClusterLab on a cluster of processes, the PyTorch peer).
#pragma once

#include <cstdint>

namespace clab::cli {

struct TrainRun {
  int64_t steps = 0;            // global steps
  double seconds = 0;           // from the first worker's first step to the last worker's last
  double cpu_us = 0;            // per global step, every process of the run together
  double context_switches = 0;  // per global step, same
  double accuracy = 0;          // held out, after training
  double steps_per_second() const { return seconds > 0 ? static_cast<double>(steps) / seconds : 0; }
};

}  // namespace clab::cli
