// An example training program, one task per process, as the seed program but learning for
// real: the ps joins; each worker trains an example classifier on its shard of a shipped
// data set (read in its graph by a MinibatchDataset op) in a MonitoredTrainingSession (StopAtStepHook, the loss logged
// every 100 steps, checkpoints when a directory is given), then prints its held-out accuracy.
//
//   clab example train --model digits-mlp --job_name ps
//   clab example train --model digits-mlp --job_name worker --task_index 0
#pragma once

#include "seed/TaskProgram.h"

#include "clab/core/Status.h"
#include "clab/distributed/ClusterSpec.h"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace clab::examples {

struct TrainProgramOptions : TaskProgramOptions {
  TrainProgramOptions() {
    last_step = 3000;
    log_device_placement = false;  // a model has many nodes: only when asked
  }
  std::string model = "digits-mlp";  // or "digits-cnn", "iris-softmax"
  // Synchronous replicas: every global step is the mean gradient of all the workers.
  bool sync = false;
};

// The models this program knows.
std::vector<std::string> TrainModels();

Status RunTrainProgram(const TrainProgramOptions& options, std::ostream& out);

}  // namespace clab::examples
