// Gradient functions of the sparse lookups an embedding column builds, as TensorFlow's
// math_grad.py and array_grad.py define them:
//   SparseSegmentSum:   UnsortedSegmentSum(Gather(dy, segment_ids), indices, rows of data),
//                       a sparse gradient the optimizers send as values and indices;
//   SparseSegmentMean / SqrtN: their *Grad ops, which share each segment's gradient;
//   GatherNd:           ScatterNd(indices, dy, shape of params).
// Indices and segment ids get no gradient.
#include "train/GradientFunctions.h"

#include "clab/graph/AttrValues.h"
#include "clab/ops/Ops.h"

namespace clab::gradients_internal {
namespace {

// The number of rows of `x` as an int32 scalar: a constant when the graph knows it.
Output RowsOf(GraphBuilder& g, const Output& x) {
  const PartialShape shape = g.ShapeOf(x);
  if (shape.known_rank() && shape.rank() >= 1 && shape.dim(0) >= 0)
    return ops::Const(g, Tensor::Scalar<int32_t>(static_cast<int32_t>(shape.dim(0))));
  return ops::Gather(g, ops::Shape(g, x), ops::Const(g, Tensor::Scalar<int32_t>(0)));
}

StatusOr<std::vector<Output>> SegmentSumGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  const Output rows = ops::Gather(g, c.grad, c.inputs[2]);
  return std::vector<Output>{ops::UnsortedSegmentSum(g, rows, c.inputs[1], RowsOf(g, c.inputs[0])), Output(), Output()};
}

GradFn SegmentSharedGrad(const char* grad_op) {
  return [grad_op](const GradContext& c) -> StatusOr<std::vector<Output>> {
    GraphBuilder& g = *c.graph;
    std::map<std::string, tensorflow::AttrValue> attrs = {{"T", AttrOf(g.TypeOf(c.grad))},
                                                          {"Tidx", AttrOf(g.TypeOf(c.inputs[1]))}};
    attrs["Tsegmentids"] = AttrOf(g.TypeOf(c.inputs[2]));
    const Output dx = g.AddNode(grad_op, {c.grad, c.inputs[1], c.inputs[2], RowsOf(g, c.inputs[0])}, attrs);
    return std::vector<Output>{dx, Output(), Output()};
  };
}

StatusOr<std::vector<Output>> GatherNdGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  const DataType index_type = g.TypeOf(c.inputs[1]);
  const Output shape = ops::Shape(g, c.inputs[0], index_type);
  const Output dx = g.AddNode("ScatterNd", {c.inputs[1], c.grad, shape},
                              {{"T", AttrOf(g.TypeOf(c.grad))}, {"Tindices", AttrOf(index_type)}});
  return std::vector<Output>{dx, Output()};
}

}  // namespace

void AddSparseGradFns(std::map<std::string, GradFn>& registry) {
  registry["SparseSegmentSum"] = SegmentSumGrad;
  registry["SparseSegmentMean"] = SegmentSharedGrad("SparseSegmentMeanGrad");
  registry["SparseSegmentSqrtN"] = SegmentSharedGrad("SparseSegmentSqrtNGrad");
  registry["GatherNd"] = GatherNdGrad;
}

}  // namespace clab::gradients_internal
