// Trains an example classifier with between-graph replication: every worker builds its own
// copy of the graph under replica_device_setter, runs it in a session on its own server, on
// its own shard of the training data, asynchronously (or as synchronous replicas); worker 0 initialises the variables
// on the ps and the others start once it has. Used by `clab bench train` and the tests.
#pragma once

#include "clab/core/Status.h"
#include "clab/distributed/Server.h"
#include "models/Classifier.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clab::examples {

struct ClusterTrainingOptions {
  std::map<std::string, std::vector<std::string>> cluster;  // "ps" and "worker" jobs
  // The workers' servers, in task order, running in this process.
  std::vector<Server*> worker_servers;
  std::vector<int> hidden = {128};
  tools::ConvLayer conv;  // none by default
  double learning_rate = 0.1;
  int batch = 32;
  int64_t total_steps = 3000;  // global steps, shared between the workers
  // Synchronous replicas: each global step applies the mean gradient of every worker's
  // minibatch (so it consumes one minibatch per worker), in monitored sessions.
  bool sync = false;
  uint64_t seed = 7;
  // When set, the CSV file `data` was loaded from: each worker's graph then reads its own
  // shard of the training split with a MinibatchDataset op (ClassifierInputs) instead of
  // being fed minibatches.
  std::string data_path;
};

struct ClusterTrainingResult {
  double seconds = 0;  // from the first worker's first step to the last worker's last
  int64_t steps = 0;
  double held_out_accuracy = 0;  // measured by worker 0 after training
};

StatusOr<ClusterTrainingResult> TrainOnCluster(const ClassificationData& data, const ClusterTrainingOptions& options);

}  // namespace clab::examples
