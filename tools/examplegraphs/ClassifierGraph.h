// The example classifiers' graphs (examples/models/Classifier trains them): softmax
// regression (no hidden layer), multi-layer perceptrons (ReLU hidden layers) and, for
// images, a convolutional layer in front of them, minimising sparse softmax cross-entropy
// with gradient descent. Built into the caller's graph under whatever device scope it sets
// (replica_device_setter puts the weights on the ps); the studio shows the same graphs.
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/train/SyncReplicasOptimizer.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace clab::tools {

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

// The same model on inputs the graph provides (a dataset node, as examples/models/Classifier's
// ClassifierInputs makes) instead of placeholders. Feeding `features` still works, so the
// model is evaluated the same way.
StatusOr<ClassifierGraph> BuildClassifierOn(GraphBuilder& graph, const Output& features, const Output& labels,
                                            int num_features, const std::vector<int>& hidden, int num_classes,
                                            double learning_rate, uint64_t seed, const ConvLayer& conv = {},
                                            int sync_replicas = 0);

}  // namespace clab::tools
