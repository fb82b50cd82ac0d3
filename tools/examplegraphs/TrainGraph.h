// The graph a worker of the example training program builds (examples/models/TrainProgram),
// as a function of its own: the program runs it, and the simulator compiles the same graph
// to predict a step. Call it inside the device scope the worker sets (replica_device_setter
// for its task).
//
//   CLAB_ASSIGN_OR_RETURN(const TrainModelSpec spec, TrainModelSpecOf("digits-mlp"));
//   auto model = BuildTrainGraph(g, {.model = "digits-mlp", .data_path = path_of(spec.data_file),
//                                    .task_index = 0, .num_workers = 2});
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/train/SyncReplicasOptimizer.h"
#include "examplegraphs/ClassifierGraph.h"

#include <memory>
#include <string>
#include <vector>

namespace clab::tools {

// What one example model is: its data set (a CSV file in resources/data, none for
// linear-regression, which draws its data in the graph) with the shape the graph is built
// for, and the classifier's layers.
struct TrainModelSpec {
  std::string data_file;  // "digits.csv.gz"; empty for linear-regression
  int num_features = 0;
  int num_classes = 0;
  std::vector<int> hidden;
  double learning_rate = 0.1;
  ConvLayer conv;
};

// The models the example training program knows, in the order `clab` lists them.
std::vector<std::string> TrainModels();
// INVALID_ARGUMENT naming the model and the known ones for another name.
StatusOr<TrainModelSpec> TrainModelSpecOf(const std::string& model);

struct TrainGraph {
  Output train;  // one step of training (a target)
  Output loss;   // the minibatch's loss (a fetch)
  // Set for synchronous replicas: every worker runs its MakeSessionRunHook.
  std::shared_ptr<SyncReplicasOptimizer> sync;
  // The classifier (empty for linear-regression).
  ClassifierGraph classifier;
};

struct TrainGraphOptions {
  std::string model;      // one of TrainModels()
  std::string data_path;  // where the worker's dataset node reads the model's data_file
  int task_index = 0;     // the worker; it reads its own shard of the training rows
  int num_workers = 1;
  int sync_replicas = 0;  // > 0: aggregate that many workers' gradients per step
};

StatusOr<TrainGraph> BuildTrainGraph(GraphBuilder& graph, const TrainGraphOptions& options);

}  // namespace clab::tools
