#include "models/TrainGraph.h"

#include "models/LinearRegression.h"
#include "models/TrainProgram.h"

#include <absl/strings/str_join.h>

#include <algorithm>

namespace clab::examples {
namespace {

struct ModelSpec {
  std::string data;
  std::vector<int> hidden;
  double learning_rate;
  ConvLayer conv;
};

StatusOr<ModelSpec> SpecOf(const std::string& model) {
  if (model == "digits-mlp") return ModelSpec{"digits.csv.gz", {128}, 0.1, {}};
  if (model == "digits-cnn") return ModelSpec{"digits.csv.gz", {}, 0.1, DigitsConvLayer()};
  if (model == "iris-softmax") return ModelSpec{"iris.csv", {}, 0.1, {}};
  return errors::InvalidArgument("unknown model '", model, "' (models: ", absl::StrJoin(TrainModels(), ", "), ")");
}

}  // namespace

StatusOr<TrainGraph> BuildTrainGraph(GraphBuilder& g, const std::string& model, int task_index, int num_workers,
                                     int sync_replicas) {
  TrainGraph built;
  if (model == "linear-regression") {
    CLAB_ASSIGN_OR_RETURN(const RegressionGraph regression,
                          BuildLinearRegression(g, 32, 0.1, 100 + task_index, sync_replicas));
    built.train = regression.train;
    built.loss = regression.loss;
    built.sync = regression.sync;
    return built;
  }
  CLAB_ASSIGN_OR_RETURN(const ModelSpec spec, SpecOf(model));
  CLAB_ASSIGN_OR_RETURN(built.data, LoadClassificationCsv(DataPath(spec.data)));
  // Each worker's graph reads minibatches of 32 from its own shard, shuffled each epoch.
  const ops::Minibatch inputs =
      ClassifierInputs(g, TrainingDataset(DataPath(spec.data), built.data.num_features, 32, task_index,
                                          std::max(num_workers, 1), 100 + static_cast<uint64_t>(task_index)));
  CLAB_ASSIGN_OR_RETURN(built.classifier,
                        BuildClassifierOn(g, inputs.features, inputs.labels, built.data.num_features, spec.hidden,
                                          built.data.num_classes, spec.learning_rate, /*seed=*/7, spec.conv,
                                          sync_replicas));
  built.train = built.classifier.train;
  built.loss = built.classifier.loss;
  built.sync = built.classifier.sync;
  return built;
}

}  // namespace clab::examples
