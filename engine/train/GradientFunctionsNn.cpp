// Gradient functions of the neural-network ops whose gradients are ops of their own or
// several ops: Softmax, LogSoftmax, SoftmaxCrossEntropyWithLogits, Conv2D, MaxPool,
// MaxPoolV2, AvgPool, LeakyRelu, LRN and FusedBatchNorm, as TensorFlow's nn_grad.py builds
// them.
#include "train/GradientFunctions.h"

#include "clab/graph/AttrValues.h"
#include "clab/ops/Ops.h"

namespace clab::gradients_internal {
namespace {

using AttrMap = std::map<std::string, tensorflow::AttrValue>;

// The forward node's attrs, for a gradient op that declares the same ones (Conv2D and its
// backprops, MaxPool and MaxPoolGrad).
AttrMap AttrsOf(const tensorflow::NodeDef& node) {
  AttrMap attrs;
  for (const auto& [name, value] : node.attr()) attrs[name] = value;
  return attrs;
}

// x's shape as an int32 vector: a constant when the graph knows it, else read when the step
// runs (a batch of any size).
Output SizesOf(GraphBuilder& g, const Output& x) {
  const PartialShape shape = g.ShapeOf(x);
  if (!shape.IsFullyDefined()) return ops::Shape(g, x);
  const std::vector<int32_t> dims(shape.dims().begin(), shape.dims().end());
  return ops::Const(g, Tensor::Vector<int32_t>(dims));
}

Output SumLastAxis(GraphBuilder& g, const Output& x) {
  return ops::Sum(g, x, ops::Const(g, Tensor::Scalar<int32_t>(-1)), /*keep_dims=*/true);
}

// d softmax: (grad - sum(grad * softmax, -1)) * softmax.
StatusOr<std::vector<Output>> SoftmaxGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  const Output& softmax = c.output;
  const Output sum = SumLastAxis(g, ops::Mul(g, c.grad, softmax));
  return std::vector<Output>{ops::Mul(g, ops::Sub(g, c.grad, sum), softmax)};
}

// d log_softmax: grad - sum(grad, -1) * exp(log_softmax).
StatusOr<std::vector<Output>> LogSoftmaxGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  return std::vector<Output>{ops::Sub(g, c.grad, ops::Mul(g, SumLastAxis(g, c.grad), ops::Exp(g, c.output)))};
}

// The op's output 1 is the gradient of each loss with respect to the features (softmax -
// labels); the labels' gradient is -log_softmax(features). Both are scaled per example by
// the gradient arriving at the loss. (Gradients flowing into output 1 itself, which only
// second derivatives use, are not followed.)
StatusOr<std::vector<Output>> SoftmaxXentGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  const Output per_example = ops::Reshape(g, c.grad, ops::Const(g, Tensor::Vector<int32_t>({-1, 1})));
  const Output backprop(c.node->name(), 1);
  const Output d_labels = ops::Mul(g, per_example, ops::Neg(g, ops::LogSoftmax(g, c.inputs[0])));
  return std::vector<Output>{ops::Mul(g, per_example, backprop), d_labels};
}

StatusOr<std::vector<Output>> Conv2DGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  const Output& input = c.inputs[0];
  const Output& filter = c.inputs[1];
  const Output d_input = g.AddNode("Conv2DBackpropInput", {SizesOf(g, input), filter, c.grad}, AttrsOf(*c.node));
  const Output d_filter = g.AddNode("Conv2DBackpropFilter", {input, SizesOf(g, filter), c.grad}, AttrsOf(*c.node));
  return std::vector<Output>{d_input, d_filter};
}

StatusOr<std::vector<Output>> MaxPoolGrad(const GradContext& c) {
  return std::vector<Output>{c.graph->AddNode("MaxPoolGrad", {c.inputs[0], c.output, c.grad}, AttrsOf(*c.node))};
}

// ksize and strides are inputs 1 and 2 of MaxPoolV2 and get no gradient.
StatusOr<std::vector<Output>> MaxPoolV2Grad(const GradContext& c) {
  const Output dx =
      c.graph->AddNode("MaxPoolGradV2", {c.inputs[0], c.output, c.grad, c.inputs[1], c.inputs[2]}, AttrsOf(*c.node));
  return std::vector<Output>{dx, Output(), Output()};
}

StatusOr<std::vector<Output>> AvgPoolGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  return std::vector<Output>{g.AddNode("AvgPoolGrad", {SizesOf(g, c.inputs[0]), c.grad}, AttrsOf(*c.node))};
}

StatusOr<std::vector<Output>> LeakyReluGrad(const GradContext& c) {
  AttrMap attrs = AttrsOf(*c.node);
  return std::vector<Output>{c.graph->AddNode("LeakyReluGrad", {c.grad, c.inputs[0]}, attrs)};
}

StatusOr<std::vector<Output>> LrnGrad(const GradContext& c) {
  return std::vector<Output>{c.graph->AddNode("LRNGrad", {c.grad, c.inputs[0], c.output}, AttrsOf(*c.node))};
}

// FusedBatchNormGrad with the batch's mean and variance (outputs 3 and 4) when training, the
// given population mean and variance (inputs 3 and 4) otherwise; mean and variance get no
// gradient.
StatusOr<std::vector<Output>> FusedBatchNormGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  bool is_training = true;
  GetNodeAttr(*c.node, "is_training", &is_training).IgnoreError();
  const Output mean = is_training ? Output(c.node->name(), 3) : c.inputs[3];
  const Output variance = is_training ? Output(c.node->name(), 4) : c.inputs[4];
  const Output dx =
      g.AddNode("FusedBatchNormGrad", {c.grad, c.inputs[0], c.inputs[1], mean, variance}, AttrsOf(*c.node));
  return std::vector<Output>{dx, Output(dx.node(), 1), Output(dx.node(), 2), Output(), Output()};
}

}  // namespace

void AddNnGradFns(std::map<std::string, GradFn>& registry) {
  registry.emplace("Softmax", SoftmaxGrad);
  registry.emplace("LogSoftmax", LogSoftmaxGrad);
  registry.emplace("SoftmaxCrossEntropyWithLogits", SoftmaxXentGrad);
  registry.emplace("Conv2D", Conv2DGrad);
  registry.emplace("MaxPool", MaxPoolGrad);
  registry.emplace("MaxPoolV2", MaxPoolV2Grad);
  registry.emplace("AvgPool", AvgPoolGrad);
  registry.emplace("LeakyRelu", LeakyReluGrad);
  registry.emplace("LRN", LrnGrad);
  registry.emplace("FusedBatchNorm", FusedBatchNormGrad);
}

}  // namespace clab::gradients_internal
