#include "train/GradientFunctions.h"

#include "clab/graph/AttrValues.h"
#include "clab/ops/Ops.h"

#include <map>

namespace clab::gradients_internal {

Output Scalar(GraphBuilder& g, DataType dtype, double value) {
  return dtype == DT_DOUBLE ? ops::Const(g, Tensor::Scalar<double>(value))
                            : ops::Const(g, Tensor::Scalar<float>(static_cast<float>(value)));
}

StatusOr<Output> SumToShapeOf(GraphBuilder& g, const Output& grad, const Output& x) {
  const PartialShape grad_shape = g.ShapeOf(grad);
  const PartialShape x_shape = g.ShapeOf(x);
  if (!x_shape.known_rank() || !grad_shape.known_rank())
    return errors::Unimplemented("the gradient of a broadcasting op needs ranks known when the graph is built (input ",
                                 x.name(), ")");
  const int extra = grad_shape.rank() - x_shape.rank();
  Output result = grad;
  if (extra > 0) {
    std::vector<int32_t> leading;
    for (int i = 0; i < extra; ++i) leading.push_back(i);
    result = ops::Sum(g, result, ops::Const(g, Tensor::Vector<int32_t>(leading)), /*keep_dims=*/false);
  }
  std::vector<int32_t> broadcast;
  for (int i = 0; i < x_shape.rank(); ++i) {
    const int64_t grad_dim = grad_shape.dim(i + std::max(extra, 0));
    if (x_shape.dim(i) == 1 && grad_dim != 1) broadcast.push_back(i);
  }
  if (!broadcast.empty())
    result = ops::Sum(g, result, ops::Const(g, Tensor::Vector<int32_t>(broadcast)), /*keep_dims=*/true);
  return result;
}

namespace {

Output ShapeConst(GraphBuilder& g, const std::vector<int64_t>& dims) {
  std::vector<int32_t> values(dims.begin(), dims.end());
  return ops::Const(g, Tensor::Vector<int32_t>(values));
}

StatusOr<std::vector<Output>> AddGrad(const GradContext& c) {
  CLAB_ASSIGN_OR_RETURN(Output dx, SumToShapeOf(*c.graph, c.grad, c.inputs[0]));
  CLAB_ASSIGN_OR_RETURN(Output dy, SumToShapeOf(*c.graph, c.grad, c.inputs[1]));
  return std::vector<Output>{dx, dy};
}

StatusOr<std::vector<Output>> SubGrad(const GradContext& c) {
  CLAB_ASSIGN_OR_RETURN(Output dx, SumToShapeOf(*c.graph, c.grad, c.inputs[0]));
  CLAB_ASSIGN_OR_RETURN(Output dy, SumToShapeOf(*c.graph, ops::Neg(*c.graph, c.grad), c.inputs[1]));
  return std::vector<Output>{dx, dy};
}

StatusOr<std::vector<Output>> MulGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  CLAB_ASSIGN_OR_RETURN(Output dx, SumToShapeOf(g, ops::Mul(g, c.grad, c.inputs[1]), c.inputs[0]));
  CLAB_ASSIGN_OR_RETURN(Output dy, SumToShapeOf(g, ops::Mul(g, c.grad, c.inputs[0]), c.inputs[1]));
  return std::vector<Output>{dx, dy};
}

StatusOr<std::vector<Output>> MatMulGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  bool ta = false, tb = false;
  GetNodeAttr(*c.node, "transpose_a", &ta).IgnoreError();
  GetNodeAttr(*c.node, "transpose_b", &tb).IgnoreError();
  const Output& a = c.inputs[0];
  const Output& b = c.inputs[1];
  const Output& dz = c.grad;
  // z = op(a) op(b): the four cases of TensorFlow's _MatMulGrad.
  if (!ta && !tb) return std::vector<Output>{ops::MatMul(g, dz, b, false, true), ops::MatMul(g, a, dz, true, false)};
  if (!ta && tb) return std::vector<Output>{ops::MatMul(g, dz, b), ops::MatMul(g, dz, a, true, false)};
  if (ta && !tb) return std::vector<Output>{ops::MatMul(g, b, dz, false, true), ops::MatMul(g, a, dz)};
  return std::vector<Output>{ops::MatMul(g, b, dz, true, true), ops::MatMul(g, dz, a, true, true)};
}

StatusOr<std::vector<Output>> IdentityGrad(const GradContext& c) { return std::vector<Output>{c.grad}; }

StatusOr<std::vector<Output>> NegGrad(const GradContext& c) { return std::vector<Output>{ops::Neg(*c.graph, c.grad)}; }

StatusOr<std::vector<Output>> SquareGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  const Output two_x = ops::Mul(g, Scalar(g, g.TypeOf(c.inputs[0]), 2.0), c.inputs[0]);
  return std::vector<Output>{ops::Mul(g, c.grad, two_x)};
}

StatusOr<std::vector<Output>> ExpGrad(const GradContext& c) {
  return std::vector<Output>{ops::Mul(*c.graph, c.grad, c.output)};
}

StatusOr<std::vector<Output>> LogGrad(const GradContext& c) {
  return std::vector<Output>{ops::RealDiv(*c.graph, c.grad, c.inputs[0])};
}

StatusOr<std::vector<Output>> SigmoidGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  const Output& y = c.output;
  const Output one_minus_y = ops::Sub(g, Scalar(g, g.TypeOf(y), 1.0), y);
  return std::vector<Output>{ops::Mul(g, c.grad, ops::Mul(g, y, one_minus_y))};
}

StatusOr<std::vector<Output>> TanhGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  const Output& y = c.output;
  const Output one_minus_y2 = ops::Sub(g, Scalar(g, g.TypeOf(y), 1.0), ops::Square(g, y));
  return std::vector<Output>{ops::Mul(g, c.grad, one_minus_y2)};
}

StatusOr<std::vector<Output>> ReluGrad(const GradContext& c) {
  return std::vector<Output>{c.graph->AddNode("ReluGrad", {c.grad, c.inputs[0]})};
}

// Sum and Mean: the gradient is broadcast back over the reduced axes (shapes known at build
// time), divided by the number of reduced elements for Mean.
StatusOr<std::vector<Output>> ReductionGrad(const GradContext& c, bool mean) {
  GraphBuilder& g = *c.graph;
  const PartialShape x_shape = g.ShapeOf(c.inputs[0]);
  const Tensor* axes_value = g.ConstantValue(c.inputs[1]);
  if (!x_shape.IsFullyDefined() || axes_value == nullptr) {
    // Shapes known only when the step runs (a batch of any size): the kernel spreads the
    // gradient with the shapes of that run.
    std::map<std::string, tensorflow::AttrValue> attrs;
    attrs["mean"] = AttrOf(mean);
    return std::vector<Output>{g.AddNode("_ReductionGrad", {c.grad, c.inputs[0], c.inputs[1]}, std::move(attrs)),
                               Output()};
  }
  const int rank = x_shape.rank();
  std::vector<int64_t> kept = x_shape.dims();
  int64_t reduced_count = 1;
  for (int64_t i = 0, i_end = axes_value->NumElements(); i < i_end; ++i) {
    int64_t axis = axes_value->dtype() == DT_INT64 ? axes_value->data<int64_t>()[i] : axes_value->data<int32_t>()[i];
    if (axis < 0) axis += rank;
    reduced_count *= kept[static_cast<size_t>(axis)];
    kept[static_cast<size_t>(axis)] = 1;
  }
  Output grad = ops::Reshape(g, c.grad, ShapeConst(g, kept));
  // Broadcast to the input's shape: multiply by ones of that shape.
  Output ones = ops::OnesLike(g, c.inputs[0]);
  Output spread = ops::Mul(g, ones, grad);
  if (mean) spread = ops::RealDiv(g, spread, Scalar(g, g.TypeOf(c.inputs[0]), static_cast<double>(reduced_count)));
  return std::vector<Output>{spread, Output()};
}

// The gradient takes the input's shape back: a constant when the graph knows it, else the
// shape the input has when the step runs.
StatusOr<std::vector<Output>> ReshapeGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  const PartialShape x_shape = g.ShapeOf(c.inputs[0]);
  const Output shape = x_shape.IsFullyDefined() ? ShapeConst(g, x_shape.dims()) : ops::Shape(g, c.inputs[0]);
  return std::vector<Output>{ops::Reshape(g, c.grad, shape), Output()};
}

// The op computed its gradient already (output 1, softmax - onehot): scale each example's
// row by the gradient arriving at its loss.
StatusOr<std::vector<Output>> SparseSoftmaxXentGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  const Output backprop(c.node->name(), 1);
  const Output per_example = ops::Reshape(g, c.grad, ops::Const(g, Tensor::Vector<int32_t>({-1, 1})));
  return std::vector<Output>{ops::Mul(g, per_example, backprop), Output()};
}

std::map<std::string, GradFn>* MakeRegistry() {
  auto* registry = new std::map<std::string, GradFn>{
      {"Identity", IdentityGrad},
      {"Add", AddGrad},
      {"AddV2", AddGrad},
      {"Sub", SubGrad},
      {"Mul", MulGrad},
      {"MatMul", MatMulGrad},
      {"Neg", NegGrad},
      {"Square", SquareGrad},
      {"Exp", ExpGrad},
      {"Log", LogGrad},
      {"Sigmoid", SigmoidGrad},
      {"Tanh", TanhGrad},
      {"Relu", ReluGrad},
      {"Sum", [](const GradContext& c) { return ReductionGrad(c, false); }},
      {"Mean", [](const GradContext& c) { return ReductionGrad(c, true); }},
      {"Reshape", ReshapeGrad},
      {"GatherV2", GatherGrad},
      {"Gather", GatherGrad},
      {"BiasAdd", AddGrad},
      {"L2Loss",
       [](const GradContext& c) -> StatusOr<std::vector<Output>> {
         return std::vector<Output>{ops::Mul(*c.graph, c.inputs[0], c.grad)};
       }},
      {"SparseSoftmaxCrossEntropyWithLogits", SparseSoftmaxXentGrad},
  };
  AddNnGradFns(*registry);
  AddMathGradFns(*registry);
  AddSparseGradFns(*registry);
  return registry;
}

const std::map<std::string, GradFn>& Registry() {
  static const std::map<std::string, GradFn>* registry = MakeRegistry();
  return *registry;
}

}  // namespace

const GradFn* FindGradFn(const std::string& op) {
  auto it = Registry().find(op);
  return it == Registry().end() ? nullptr : &it->second;
}

}  // namespace clab::gradients_internal
