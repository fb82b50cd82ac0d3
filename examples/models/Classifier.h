// Example classifiers on the shipped data sets (resources/data): softmax regression (no
// hidden layer), multi-layer perceptrons (ReLU hidden layers) and, for images, a
// convolutional layer in front of them; trained with minibatch gradient descent on sparse
// softmax cross-entropy. Built into the caller's graph under
// whatever device scope it sets (replica_device_setter puts the weights on the ps).
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"
#include "clab/train/SyncReplicasOptimizer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace clab::examples {

struct Examples {
  Tensor features;  // float [n, d]
  Tensor labels;    // int32 [n]
  int64_t size() const { return features.shape().rank() == 2 ? features.shape().dim(0) : 0; }
};

struct ClassificationData {
  Examples train;
  Examples held_out;
  int num_classes = 0;
  int num_features = 0;
};

// Reads a CSV table whose last column is the class (0..k-1); every `held_out_every`-th row
// goes to the held-out split. Features are scaled to zero mean and unit variance with the
// training split's statistics.
StatusOr<ClassificationData> LoadClassificationCsv(const std::string& path, int held_out_every = 5);

// The given rows, in that order.
Examples Rows(const Examples& data, const std::vector<int64_t>& rows);

// Rows i with i % num_shards == shard: a worker's share of the data.
Examples Shard(const Examples& examples, int shard, int num_shards);

struct ClassifierGraph {
  Output features;  // placeholder float [?, d] (or what BuildClassifierOn was given)
  Output labels;    // placeholder int32 [?]
  Output logits;    // [?, classes]
  Output loss;      // mean cross-entropy, a scalar
  Output train;     // one step of gradient descent (and the global step's increment)
  // Set for synchronous replicas: every worker runs its MakeSessionRunHook.
  std::shared_ptr<SyncReplicasOptimizer> sync;
};

// A convolutional layer for features that are the pixels of a one-channel image, row by
// row: the image (NHWC [?, height, width, 1]) goes through a kernel x kernel convolution
// (SAME) to `filters` channels, a bias and ReLU, then 2x2 max pooling with stride 2; the
// pooled maps, flattened, feed the dense layers.
struct ConvLayer {
  int filters = 0;  // 0: no convolutional layer
  int height = 0;   // height * width must be the number of features
  int width = 0;
  int kernel = 3;
};

// The digits-cnn model's layer: 3x3 convolution of the 8x8 digits to 16 channels.
inline ConvLayer DigitsConvLayer() { return ConvLayer{16, 8, 8, 3}; }

// `hidden`: the sizes of the hidden layers ({} is softmax regression), after the
// convolutional layer when `conv` has filters ("conv1/weights", "hidden1/weights", ...,
// "logits/weights"). Weights start from a normal distribution scaled by sqrt(2 / fan_in),
// drawn from `seed`; biases from zero. sync_replicas > 0: updates through
// SyncReplicasOptimizer, each the mean of that many workers' gradients; 0: every worker
// updates the ps on its own (asynchronously).
StatusOr<ClassifierGraph> BuildClassifier(GraphBuilder& graph, int num_features, const std::vector<int>& hidden,
                                          int num_classes, double learning_rate, uint64_t seed,
                                          const ConvLayer& conv = {}, int sync_replicas = 0);

// The same model on inputs the graph provides (ClassifierInputs below) instead of
// placeholders. Feeding `features` still works, so Accuracy evaluates it as before.
StatusOr<ClassifierGraph> BuildClassifierOn(GraphBuilder& graph, const Output& features, const Output& labels,
                                            int num_features, const std::vector<int>& hidden, int num_classes,
                                            double learning_rate, uint64_t seed, const ConvLayer& conv = {},
                                            int sync_replicas = 0);

// Runs `steps` steps on minibatches of `batch` examples drawn in a shuffled order (from
// `seed`); the last minibatch's loss.
StatusOr<double> Train(Session& session, const ClassifierGraph& model, const Examples& data, int64_t steps, int batch,
                       uint64_t seed);

// Runs `steps` steps of a model whose graph reads its own minibatches; the last loss.
StatusOr<double> TrainOnGraphInput(Session& session, const ClassifierGraph& model, int64_t steps);

// The fraction of `data` whose largest logit is the label.
StatusOr<double> Accuracy(Session& session, const ClassifierGraph& model, const Examples& data);

// resources/data/<name> in the source tree (CLAB_SOURCE_DIR when set) or next to the
// installed program (../share/clusterlab/data).
std::string DataPath(const std::string& name);

// Reading the data in the graph: a MinibatchDataset over the CSV file `path` split and
// scaled as LoadClassificationCsv does (every `held_out_every`-th row held out, features
// standardised with the training split's statistics), so shard `shard` of `num_shards`
// serves exactly the rows of Shard(data.train, shard, num_shards), in an order shuffled
// from `seed` each epoch.
ops::MinibatchDatasetOptions TrainingDataset(const std::string& path, int num_features, int batch, int shard,
                                             int num_shards, uint64_t seed, int held_out_every = 5);
// The dataset node ("train_data") and Identity nodes "features" and "labels" on its outputs:
// the classifier's inputs, which evaluation can feed as it feeds the placeholders.
ops::Minibatch ClassifierInputs(GraphBuilder& graph, const ops::MinibatchDatasetOptions& options);

}  // namespace clab::examples
