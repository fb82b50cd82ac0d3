// Example classifiers on the shipped data sets (resources/data): softmax regression (no
// hidden layer), multi-layer perceptrons (ReLU hidden layers) and, for images, a
// convolutional layer in front of them; trained with minibatch gradient descent on sparse
// softmax cross-entropy. Built into the caller's graph under
// whatever device scope it sets (replica_device_setter puts the weights on the ps).
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/runtime/Session.h"

#include <cstdint>
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

// Rows i with i % num_shards == shard: a worker's share of the data.
Examples Shard(const Examples& examples, int shard, int num_shards);

struct ClassifierGraph {
  Output features;  // placeholder float [?, d]
  Output labels;    // placeholder int32 [?]
  Output logits;    // [?, classes]
  Output loss;      // mean cross-entropy, a scalar
  Output train;     // one step of gradient descent (and the global step's increment)
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
// drawn from `seed`; biases from zero.
StatusOr<ClassifierGraph> BuildClassifier(GraphBuilder& graph, int num_features, const std::vector<int>& hidden,
                                          int num_classes, double learning_rate, uint64_t seed,
                                          const ConvLayer& conv = {});

// Runs `steps` steps on minibatches of `batch` examples drawn in a shuffled order (from
// `seed`); the last minibatch's loss.
StatusOr<double> Train(Session& session, const ClassifierGraph& model, const Examples& data, int64_t steps, int batch,
                       uint64_t seed);

// The fraction of `data` whose largest logit is the label.
StatusOr<double> Accuracy(Session& session, const ClassifierGraph& model, const Examples& data);

// resources/data/<name> in the source tree (CLAB_SOURCE_DIR when set) or next to the
// installed program (../share/clusterlab/data).
std::string DataPath(const std::string& name);

}  // namespace clab::examples
