// The graph a worker of an example training program builds (TrainProgram), as a function of
// its own: the program runs it, and the simulator compiles the same graph to predict a step.
// Call it inside the device scope the worker sets (replica_device_setter for its task).
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/train/SyncReplicasOptimizer.h"
#include "models/Classifier.h"

#include <memory>
#include <string>
#include <vector>

namespace clab::examples {

struct TrainGraph {
  Output train;  // one step of training (a target)
  Output loss;   // the minibatch's loss (a fetch)
  // Set for synchronous replicas: every worker runs its MakeSessionRunHook.
  std::shared_ptr<SyncReplicasOptimizer> sync;
  // The classifiers' data set and model (empty for linear-regression).
  ClassificationData data;
  ClassifierGraph classifier;
};

// `model` is one of TrainModels(). Worker `task_index` of `num_workers` reads its own shard
// of the training rows; sync_replicas > 0 aggregates that many workers' gradients per step.
StatusOr<TrainGraph> BuildTrainGraph(GraphBuilder& graph, const std::string& model, int task_index, int num_workers,
                                     int sync_replicas);

}  // namespace clab::examples
