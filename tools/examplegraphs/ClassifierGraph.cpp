#include "examplegraphs/ClassifierGraph.h"

#include "clab/ops/Ops.h"
#include "clab/train/GlobalStep.h"
#include "examplegraphs/Descent.h"

#include <cmath>
#include <random>
#include <string>

namespace clab::tools {

StatusOr<ClassifierGraph> BuildClassifier(GraphBuilder& g, int num_features, const std::vector<int>& hidden,
                                          int num_classes, double learning_rate, uint64_t seed, const ConvLayer& conv,
                                          int sync_replicas) {
  const Output features = ops::Placeholder(g, DT_FLOAT, PartialShape{-1, num_features}, "features");
  const Output labels = ops::Placeholder(g, DT_INT32, PartialShape{-1}, "labels");
  return BuildClassifierOn(g, features, labels, num_features, hidden, num_classes, learning_rate, seed, conv,
                           sync_replicas);
}

StatusOr<ClassifierGraph> BuildClassifierOn(GraphBuilder& g, const Output& features, const Output& labels,
                                            int num_features, const std::vector<int>& hidden, int num_classes,
                                            double learning_rate, uint64_t seed, const ConvLayer& conv,
                                            int sync_replicas) {
  ClassifierGraph model;
  GetOrCreateGlobalStep(g);  // first, so replica_device_setter deals it to ps 0 as before
  model.features = features;
  model.labels = labels;
  std::mt19937_64 rng(seed);
  // Weights of `dims` drawn with He scaling for `fan_in` inputs per unit, zero biases.
  auto layer_variables = [&](const std::vector<int64_t>& dims, int64_t fan_in) {
    Tensor initial(DT_FLOAT, TensorShape(dims));
    std::normal_distribution<double> normal(0.0, std::sqrt(2.0 / static_cast<double>(fan_in)));
    for (int64_t i = 0; i < initial.NumElements(); ++i) initial.data<float>()[i] = static_cast<float>(normal(rng));
    ops::Variable weights = ops::MakeVariable(g, ops::Const(g, initial, "initial_weights"), "weights");
    ops::Variable biases =
        ops::MakeVariable(g, ops::Const(g, Tensor(DT_FLOAT, TensorShape({dims.back()})), "initial_biases"), "biases");
    return std::make_pair(weights.read, biases.read);
  };
  Output activations = model.features;
  int fan_in = num_features;
  if (conv.filters > 0) {
    if (conv.height * conv.width != num_features || conv.kernel < 1)
      return errors::InvalidArgument("a convolutional layer over ", conv.height, "x", conv.width, " images (kernel ",
                                     conv.kernel, ") does not fit ", num_features, " features");
    auto scope = g.WithNameScope("conv1");
    const Output images =
        ops::Reshape(g, model.features, ops::Const(g, Tensor::Vector<int32_t>({-1, conv.height, conv.width, 1})));
    const auto [filter, biases] =
        layer_variables({conv.kernel, conv.kernel, 1, conv.filters}, conv.kernel * conv.kernel);
    const Output maps = ops::Relu(g, ops::BiasAdd(g, ops::Conv2D(g, images, filter, {1, 1, 1, 1}, "SAME"), biases));
    const Output pooled = ops::MaxPool(g, maps, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
    fan_in = ((conv.height + 1) / 2) * ((conv.width + 1) / 2) * conv.filters;
    activations = ops::Reshape(g, pooled, ops::Const(g, Tensor::Vector<int32_t>({-1, fan_in})));
  }
  std::vector<int> sizes = hidden;
  sizes.push_back(num_classes);
  for (size_t layer = 0; layer < sizes.size(); ++layer) {
    const int fan_out = sizes[layer];
    const std::string name = layer + 1 == sizes.size() ? "logits" : "hidden" + std::to_string(layer + 1);
    auto scope = g.WithNameScope(name);
    const auto [weights, biases] = layer_variables({fan_in, fan_out}, fan_in);
    activations = ops::Add(g, ops::MatMul(g, activations, weights), biases);
    if (layer + 1 < sizes.size()) activations = ops::Relu(g, activations);
    fan_in = fan_out;
  }
  model.logits = activations;
  const Output per_example = ops::SparseSoftmaxCrossEntropyWithLogits(g, model.logits, model.labels, "xent");
  model.loss = ops::Mean(g, per_example, ops::Const(g, Tensor::Scalar<int32_t>(0)), false, "loss");
  CLAB_ASSIGN_OR_RETURN(model.train, MinimizeWithDescent(g, model.loss, learning_rate, sync_replicas, &model.sync));
  CLAB_RETURN_IF_ERROR(g.status());
  return model;
}

}  // namespace clab::tools
