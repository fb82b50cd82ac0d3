#include "examplegraphs/TrainGraph.h"

#include "examplegraphs/RegressionGraph.h"
#include "examplegraphs/TrainingInputs.h"

#include <absl/strings/str_join.h>

#include <algorithm>

namespace clab::tools {

std::vector<std::string> TrainModels() { return {"digits-mlp", "digits-cnn", "iris-softmax", "linear-regression"}; }

StatusOr<TrainModelSpec> TrainModelSpecOf(const std::string& model) {
  // The shipped data sets: 8x8 digit images in 10 classes, 4 iris measurements in 3 species.
  if (model == "digits-mlp") return TrainModelSpec{"digits.csv.gz", 64, 10, {128}, 0.1, {}};
  if (model == "digits-cnn") return TrainModelSpec{"digits.csv.gz", 64, 10, {}, 0.1, DigitsConvLayer()};
  if (model == "iris-softmax") return TrainModelSpec{"iris.csv", 4, 3, {}, 0.1, {}};
  if (model == "linear-regression") return TrainModelSpec{"", 0, 0, {}, 0.1, {}};
  return errors::InvalidArgument("unknown model '", model, "' (models: ", absl::StrJoin(TrainModels(), ", "), ")");
}

StatusOr<TrainGraph> BuildTrainGraph(GraphBuilder& g, const TrainGraphOptions& options) {
  CLAB_ASSIGN_OR_RETURN(const TrainModelSpec spec, TrainModelSpecOf(options.model));
  TrainGraph built;
  if (spec.data_file.empty()) {
    CLAB_ASSIGN_OR_RETURN(
        const RegressionGraph regression,
        BuildLinearRegression(g, 32, spec.learning_rate, 100 + options.task_index, options.sync_replicas));
    built.train = regression.train;
    built.loss = regression.loss;
    built.sync = regression.sync;
    return built;
  }
  // Each worker's graph reads minibatches of 32 from its own shard, shuffled each epoch.
  const ops::Minibatch inputs = ClassifierInputs(
      g, TrainingDataset(options.data_path, spec.num_features, 32, options.task_index, std::max(options.num_workers, 1),
                         100 + static_cast<uint64_t>(options.task_index)));
  CLAB_ASSIGN_OR_RETURN(built.classifier, BuildClassifierOn(g, inputs.features, inputs.labels, spec.num_features,
                                                            spec.hidden, spec.num_classes, spec.learning_rate,
                                                            /*seed=*/7, spec.conv, options.sync_replicas));
  built.train = built.classifier.train;
  built.loss = built.classifier.loss;
  built.sync = built.classifier.sync;
  return built;
}

}  // namespace clab::tools
