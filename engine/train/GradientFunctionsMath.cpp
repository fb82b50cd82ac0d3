// Gradient functions of the element-wise math and array ops that TensorFlow-written graphs
// use, as TensorFlow's math_grad.py and array_grad.py define them: Maximum and Minimum send
// the gradient to the side that won (x on ties), Abs multiplies by the sign, Reciprocal,
// Sqrt and Rsqrt use their *Grad ops, Log1p divides by 1 + x, SquaredDifference gives
// 2 (x - y) with opposite signs; ExpandDims and Squeeze reshape back; Pack unstacks;
// ReverseSequence reverses the gradient the same way.
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
}

}  // namespace clab::gradients_internal
