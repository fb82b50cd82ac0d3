#include "train/GradientFunctions.h"

#include "clab/graph/AttrValues.h"
#include "clab/ops/Ops.h"

#include <map>

namespace clab::gradients_internal {
namespace {

Output Scalar(GraphBuilder& g, DataType dtype, double value) {
  return dtype == DT_DOUBLE ? ops::Const(g, Tensor::Scalar<double>(value))
                            : ops::Const(g, Tensor::Scalar<float>(static_cast<float>(value)));
}

Output ShapeConst(GraphBuilder& g, const std::vector<int64_t>& dims) {
  std::vector<int32_t> values(dims.begin(), dims.end());
  return ops::Const(g, Tensor::Vector<int32_t>(values));
}

// Sums `grad` (shaped like the broadcast result) down to the shape of `x`: numpy
// broadcasting's gradient. Uses the shapes known when the graph is built; a dimension
// unknown on both sides is taken as equal.
StatusOr<Output> SumToShapeOf(GraphBuilder& g, const Output& grad, const Output& x) {
  const PartialShape grad_shape = g.ShapeOf(grad);
  const PartialShape x_shape = g.ShapeOf(x);
  if (!x_shape.known_rank() || !grad_shape.known_rank())
    return errors::Unimplemented("the gradient of a broadcasting op needs ranks known when the graph is built (input ",
                                 x.name(), ")");
  const int grad_rank = grad_shape.rank();
  const int x_rank = x_shape.rank();
  if (grad_rank == x_rank) {
    bool same = true;
    for (int i = 0; i < x_rank; ++i) same &= x_shape.dim(i) == grad_shape.dim(i) || x_shape.dim(i) < 0 || grad_shape.dim(i) < 0;
    bool any_broadcast = false;
    for (int i = 0; i < x_rank; ++i) any_broadcast |= x_shape.dim(i) == 1 && grad_shape.dim(i) != 1;
    if (same && !any_broadcast) return grad;
  }
  std::vector<int32_t> axes;
  for (int i = 0; i < grad_rank - x_rank; ++i) axes.push_back(i);
  for (int i = 0; i < x_rank; ++i) {
    const int gi = i + grad_rank - x_rank;
    if (x_shape.dim(i) == 1 && grad_shape.dim(gi) != 1) axes.push_back(gi);
  }
  if (axes.empty()) return grad;
  Output summed = ops::Sum(g, grad, ops::Const(g, Tensor::Vector<int32_t>(axes)), /*keep_dims=*/true);
  if (!x_shape.IsFullyDefined()) {
    if (grad_rank == x_rank) return summed;
    return errors::Unimplemented("the gradient of a broadcasting op needs the shape of ", x.name(),
                                 " known when the graph is built");
  }
  return ops::Reshape(g, summed, ShapeConst(g, x_shape.dims()));
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
  if (!x_shape.IsFullyDefined() || axes_value == nullptr)
    return errors::Unimplemented("the gradient of ", c.node->op(), " '", c.node->name(),
                                 "' needs its input shape and a constant reduction_indices when the graph is built");
  const int rank = x_shape.rank();
  std::vector<int64_t> kept = x_shape.dims();
  int64_t reduced_count = 1;
  for (int64_t i = 0; i < axes_value->NumElements(); ++i) {
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

StatusOr<std::vector<Output>> ReshapeGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  const PartialShape x_shape = g.ShapeOf(c.inputs[0]);
  if (!x_shape.IsFullyDefined())
    return errors::Unimplemented("the gradient of Reshape '", c.node->name(), "' needs its input shape when the graph is built");
  return std::vector<Output>{ops::Reshape(g, c.grad, ShapeConst(g, x_shape.dims())), Output()};
}

const std::map<std::string, GradFn>& Registry() {
  static const auto* registry = new std::map<std::string, GradFn>{
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
  };
  return *registry;
}

}  // namespace

const GradFn* FindGradFn(const std::string& op) {
  auto it = Registry().find(op);
  return it == Registry().end() ? nullptr : &it->second;
}

}  // namespace clab::gradients_internal
