// clab::ops wrappers for the math, nn and random ops: each adds one node. Type attrs that
// follow from the inputs (T, Tidx) are left to GraphBuilder::AddNode, which infers them.
#include "clab/graph/AttrValues.h"
#include "clab/ops/Ops.h"

#include <map>
#include <string>

namespace clab::ops {
namespace {

using AttrMap = std::map<std::string, tensorflow::AttrValue>;

Output Unary(GraphBuilder& g, std::string_view op, const Output& x, std::string_view name) {
  return g.AddNode(op, {x}, {}, name);
}

Output Binary(GraphBuilder& g, std::string_view op, const Output& x, const Output& y, std::string_view name) {
  return g.AddNode(op, {x, y}, {}, name);
}

Output Reduction(GraphBuilder& g, std::string_view op, const Output& x, const Output& axes, bool keep_dims,
                 std::string_view name) {
  AttrMap attrs;
  attrs["keep_dims"] = AttrOf(keep_dims);
  return g.AddNode(op, {x, axes}, std::move(attrs), name);
}

Output Random(GraphBuilder& g, std::string_view op, const Output& shape, DataType dtype, int64_t seed, int64_t seed2,
              std::string_view name) {
  AttrMap attrs;
  attrs["dtype"] = AttrOf(dtype);
  attrs["seed"] = AttrOf(seed);
  attrs["seed2"] = AttrOf(seed2);
  return g.AddNode(op, {shape}, std::move(attrs), name);
}

}  // namespace

Output MatMul(GraphBuilder& g, const Output& a, const Output& b, bool transpose_a, bool transpose_b,
              std::string_view name) {
  AttrMap attrs;
  attrs["transpose_a"] = AttrOf(transpose_a);
  attrs["transpose_b"] = AttrOf(transpose_b);
  return g.AddNode("MatMul", {a, b}, std::move(attrs), name);
}

// tf.add builds AddV2 since TensorFlow 1.15; the older Add remains for loaded graphs.
Output Add(GraphBuilder& g, const Output& x, const Output& y, std::string_view name) {
  return Binary(g, "AddV2", x, y, name);
}
Output Sub(GraphBuilder& g, const Output& x, const Output& y, std::string_view name) {
  return Binary(g, "Sub", x, y, name);
}
Output Mul(GraphBuilder& g, const Output& x, const Output& y, std::string_view name) {
  return Binary(g, "Mul", x, y, name);
}
Output RealDiv(GraphBuilder& g, const Output& x, const Output& y, std::string_view name) {
  return Binary(g, "RealDiv", x, y, name);
}

Output Neg(GraphBuilder& g, const Output& x, std::string_view name) { return Unary(g, "Neg", x, name); }
Output Square(GraphBuilder& g, const Output& x, std::string_view name) { return Unary(g, "Square", x, name); }
Output Sqrt(GraphBuilder& g, const Output& x, std::string_view name) { return Unary(g, "Sqrt", x, name); }
Output Exp(GraphBuilder& g, const Output& x, std::string_view name) { return Unary(g, "Exp", x, name); }
Output Log(GraphBuilder& g, const Output& x, std::string_view name) { return Unary(g, "Log", x, name); }

Output Sum(GraphBuilder& g, const Output& x, const Output& axes, bool keep_dims, std::string_view name) {
  return Reduction(g, "Sum", x, axes, keep_dims, name);
}
Output Mean(GraphBuilder& g, const Output& x, const Output& axes, bool keep_dims, std::string_view name) {
  return Reduction(g, "Mean", x, axes, keep_dims, name);
}

Output Relu(GraphBuilder& g, const Output& x, std::string_view name) { return Unary(g, "Relu", x, name); }
Output Sigmoid(GraphBuilder& g, const Output& x, std::string_view name) { return Unary(g, "Sigmoid", x, name); }
Output Tanh(GraphBuilder& g, const Output& x, std::string_view name) { return Unary(g, "Tanh", x, name); }
Output Softmax(GraphBuilder& g, const Output& logits, std::string_view name) {
  return Unary(g, "Softmax", logits, name);
}
Output LogSoftmax(GraphBuilder& g, const Output& logits, std::string_view name) {
  return Unary(g, "LogSoftmax", logits, name);
}
Output BiasAdd(GraphBuilder& g, const Output& value, const Output& bias, std::string_view name) {
  return g.AddNode("BiasAdd", {value, bias}, {}, name);
}
Output L2Loss(GraphBuilder& g, const Output& t, std::string_view name) { return g.AddNode("L2Loss", {t}, {}, name); }
Output ArgMax(GraphBuilder& g, const Output& input, int axis, std::string_view name) {
  return g.AddNode("ArgMax", {input, Const(g, Tensor::Scalar<int32_t>(axis))}, {}, name);
}
Output Equal(GraphBuilder& g, const Output& x, const Output& y, std::string_view name) {
  return g.AddNode("Equal", {x, y}, {}, name);
}
Output SparseSoftmaxCrossEntropyWithLogits(GraphBuilder& g, const Output& logits, const Output& labels,
                                           std::string_view name) {
  return g.AddNode("SparseSoftmaxCrossEntropyWithLogits", {logits, labels}, {}, name);
}

Output SoftmaxCrossEntropyWithLogits(GraphBuilder& g, const Output& logits, const Output& labels,
                                     std::string_view name) {
  return g.AddNode("SoftmaxCrossEntropyWithLogits", {logits, labels}, {}, name);
}

Output RandomUniform(GraphBuilder& g, const Output& shape, DataType dtype, int64_t seed, int64_t seed2,
                     std::string_view name) {
  return Random(g, "RandomUniform", shape, dtype, seed, seed2, name);
}
Output RandomStandardNormal(GraphBuilder& g, const Output& shape, DataType dtype, int64_t seed, int64_t seed2,
                            std::string_view name) {
  return Random(g, "RandomStandardNormal", shape, dtype, seed, seed2, name);
}
Output TruncatedNormal(GraphBuilder& g, const Output& shape, DataType dtype, int64_t seed, int64_t seed2,
                       std::string_view name) {
  return Random(g, "TruncatedNormal", shape, dtype, seed, seed2, name);
}

}  // namespace clab::ops
