// Gradient functions of the element-wise math and array ops that TensorFlow-written graphs
// use, as TensorFlow's math_grad.py and array_grad.py define them: Maximum and Minimum send
// the gradient to the side that won (x on ties), Abs multiplies by the sign, Reciprocal,
// Sqrt and Rsqrt use their *Grad ops, Log1p divides by 1 + x, SquaredDifference gives
// 2 (x - y) with opposite signs; ExpandDims and Squeeze reshape back; Pack unstacks;
// ReverseSequence reverses the gradient the same way; StridedSlice's is StridedSliceGrad;
// BatchMatMul's is two batched products, as MatMul's (BatchMatMulV2's then summed over the
// batch dimensions each side broadcast).
#include "train/GradientFunctions.h"

#include "clab/graph/AttrValues.h"
#include "clab/ops/Ops.h"

namespace clab::gradients_internal {
namespace {

using AttrMap = std::map<std::string, tensorflow::AttrValue>;

AttrMap TypeAttr(GraphBuilder& g, const Output& x) { return {{"T", AttrOf(g.TypeOf(x))}}; }

// Maximum (`max` true) or Minimum: the side whose value the output took.
StatusOr<std::vector<Output>> ExtremumGrad(const GradContext& c, bool max) {
  GraphBuilder& g = *c.graph;
  const Output& x = c.inputs[0];
  const Output& y = c.inputs[1];
  // The mask has the broadcast shape: the comparison broadcasts as the op did.
  const Output x_wins = g.AddNode(max ? "GreaterEqual" : "LessEqual", {x, y}, TypeAttr(g, x));
  const Output zeros = ops::ZerosLike(g, c.grad);
  const AttrMap attrs = TypeAttr(g, x);
  const Output gx = g.AddNode("Select", {x_wins, c.grad, zeros}, attrs);
  const Output gy = g.AddNode("Select", {x_wins, zeros, c.grad}, attrs);
  CLAB_ASSIGN_OR_RETURN(Output dx, SumToShapeOf(g, gx, x));
  CLAB_ASSIGN_OR_RETURN(Output dy, SumToShapeOf(g, gy, y));
  return std::vector<Output>{dx, dy};
}

StatusOr<std::vector<Output>> AbsGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  return std::vector<Output>{ops::Mul(g, c.grad, g.AddNode("Sign", {c.inputs[0]}, TypeAttr(g, c.inputs[0])))};
}

// Ops whose gradient is an op of the form XGrad(y, dy).
GradFn OutputGradOp(const char* grad_op) {
  return [grad_op](const GradContext& c) -> StatusOr<std::vector<Output>> {
    return std::vector<Output>{c.graph->AddNode(grad_op, {c.output, c.grad}, TypeAttr(*c.graph, c.output))};
  };
}

StatusOr<std::vector<Output>> Log1pGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  const Output& x = c.inputs[0];
  return std::vector<Output>{ops::RealDiv(g, c.grad, ops::Add(g, Scalar(g, g.TypeOf(x), 1.0), x))};
}

StatusOr<std::vector<Output>> SquaredDifferenceGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  const Output& x = c.inputs[0];
  const Output& y = c.inputs[1];
  const Output d = ops::Mul(g, ops::Mul(g, Scalar(g, g.TypeOf(x), 2.0), ops::Sub(g, x, y)), c.grad);
  CLAB_ASSIGN_OR_RETURN(Output dx, SumToShapeOf(g, d, x));
  CLAB_ASSIGN_OR_RETURN(Output dy, SumToShapeOf(g, ops::Neg(g, d), y));
  return std::vector<Output>{dx, dy};
}

// ExpandDims and Squeeze only change the shape: the gradient takes x's shape back.
StatusOr<std::vector<Output>> ReshapeBackGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  std::vector<Output> grads(c.inputs.size());
  grads[0] = ops::Reshape(g, c.grad, ops::Shape(g, c.inputs[0]));
  return grads;
}

StatusOr<std::vector<Output>> PackGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  int64_t axis = 0;
  CLAB_RETURN_IF_ERROR(GetNodeAttr(*c.node, "axis", &axis));
  const Output unpacked = g.AddNode("Unpack", {c.grad},
                                    {{"num", AttrOf(static_cast<int64_t>(c.inputs.size()))},
                                     {"axis", AttrOf(axis)},
                                     {"T", AttrOf(g.TypeOf(c.grad))}});
  return g.Outputs(unpacked.node());
}

StatusOr<std::vector<Output>> ReverseSequenceGrad(const GradContext& c) {
  std::map<std::string, tensorflow::AttrValue> attrs;
  for (const auto& [name, value] : c.node->attr()) attrs[name] = value;
  return std::vector<Output>{c.graph->AddNode("ReverseSequence", {c.grad, c.inputs[1]}, attrs), Output()};
}

// StridedSliceGrad(shape of x, begin, end, strides, dy) with StridedSlice's masks; the
// shape has the type of the index inputs.
StatusOr<std::vector<Output>> StridedSliceGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  DataType index_type = DT_INT32;
  GetNodeAttr(*c.node, "Index", &index_type).IgnoreError();
  const PartialShape x_shape = g.ShapeOf(c.inputs[0]);
  Output shape;
  if (x_shape.IsFullyDefined() && index_type == DT_INT32) {
    shape = ops::Const(g, Tensor::Vector<int32_t>(std::vector<int32_t>(x_shape.dims().begin(), x_shape.dims().end())));
  } else if (x_shape.IsFullyDefined()) {
    shape = ops::Const(g, Tensor::Vector<int64_t>(x_shape.dims()));
  } else {
    shape = ops::Shape(g, c.inputs[0], index_type);
  }
  AttrMap attrs;
  for (const auto& [name, value] : c.node->attr()) attrs[name] = value;
  const Output dx = g.AddNode("StridedSliceGrad", {shape, c.inputs[1], c.inputs[2], c.inputs[3], c.grad}, attrs);
  return std::vector<Output>{dx, Output(), Output(), Output()};
}

// z = op(x) op(y), op an optional adjoint (transpose): the four cases of TensorFlow's
// _BatchMatMul gradient. BatchMatMulV2 broadcasts the batch dimensions, so each side's
// gradient is summed back to its own shape.
StatusOr<std::vector<Output>> BatchMatMulGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  bool adj_x = false, adj_y = false;
  GetNodeAttr(*c.node, "adj_x", &adj_x).IgnoreError();
  GetNodeAttr(*c.node, "adj_y", &adj_y).IgnoreError();
  const std::string& op = c.node->op();
  const Output& x = c.inputs[0];
  const Output& y = c.inputs[1];
  const Output& dz = c.grad;
  auto product = [&](const Output& a, const Output& b, bool ta, bool tb) {
    return g.AddNode(op, {a, b}, {{"T", AttrOf(g.TypeOf(x))}, {"adj_x", AttrOf(ta)}, {"adj_y", AttrOf(tb)}});
  };
  Output dx, dy;
  if (!adj_x && !adj_y) {
    dx = product(dz, y, false, true);
    dy = product(x, dz, true, false);
  } else if (!adj_x && adj_y) {
    dx = product(dz, y, false, false);
    dy = product(dz, x, true, false);
  } else if (adj_x && !adj_y) {
    dx = product(y, dz, false, true);
    dy = product(x, dz, false, false);
  } else {
    dx = product(y, dz, true, true);
    dy = product(dz, x, true, true);
  }
  if (op == "BatchMatMulV2") {
    CLAB_ASSIGN_OR_RETURN(dx, SumToShapeOf(g, dx, x));
    CLAB_ASSIGN_OR_RETURN(dy, SumToShapeOf(g, dy, y));
  }
  return std::vector<Output>{dx, dy};
}

}  // namespace

void AddMathGradFns(std::map<std::string, GradFn>& registry) {
  registry["Maximum"] = [](const GradContext& c) { return ExtremumGrad(c, true); };
  registry["Minimum"] = [](const GradContext& c) { return ExtremumGrad(c, false); };
  registry["Abs"] = AbsGrad;
  registry["Reciprocal"] = OutputGradOp("ReciprocalGrad");
  registry["Sqrt"] = OutputGradOp("SqrtGrad");
  registry["Rsqrt"] = OutputGradOp("RsqrtGrad");
  registry["Log1p"] = Log1pGrad;
  registry["SquaredDifference"] = SquaredDifferenceGrad;
  registry["ExpandDims"] = ReshapeBackGrad;
  registry["Squeeze"] = ReshapeBackGrad;
  registry["Pack"] = PackGrad;
  registry["ReverseSequence"] = ReverseSequenceGrad;
  registry["StridedSlice"] = StridedSliceGrad;
  registry["BatchMatMul"] = BatchMatMulGrad;
  registry["BatchMatMulV2"] = BatchMatMulGrad;
}

}  // namespace clab::gradients_internal
