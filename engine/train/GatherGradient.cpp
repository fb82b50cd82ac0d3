#include "clab/graph/AttrValues.h"
#include "clab/ops/Ops.h"
#include "train/GradientFunctions.h"

namespace clab::gradients_internal {

StatusOr<std::vector<Output>> GatherGrad(const GradContext& c) {
  GraphBuilder& g = *c.graph;
  if (c.node->op() == "GatherV2") {
    const tensorflow::NodeDef* axis = g.FindNode(c.inputs[2].node());
    Tensor value;
    if (axis == nullptr || axis->op() != "Const" || !GetNodeAttr(*axis, "value", &value).ok() ||
        value.NumElements() != 1 ||
        (value.dtype() == DT_INT32 ? value.data<int32_t>()[0] : value.data<int64_t>()[0]) != 0)
      return errors::Unimplemented("the gradient of GatherV2 '", c.node->name(), "' needs a constant axis of 0");
  }
  const PartialShape params = g.ShapeOf(c.inputs[0]);
  if (!params.IsFullyDefined() || params.rank() < 1)
    return errors::Unimplemented("the gradient of ", c.node->op(), " '", c.node->name(),
                                 "' needs the full shape of its params when the graph is built, got ",
                                 params.DebugString());
  // values: one row of params' shape per index; indices flattened to match.
  std::vector<int32_t> row_shape{-1};
  for (int i = 1; i < params.rank(); ++i) row_shape.push_back(static_cast<int32_t>(params.dim(i)));
  Output values = ops::Reshape(g, c.grad, ops::Const(g, Tensor::Vector<int32_t>(row_shape)));
  Output indices = ops::Reshape(g, c.inputs[1], ops::Const(g, Tensor::Vector<int32_t>({-1})));
  Output rows = ops::Const(g, Tensor::Scalar<int32_t>(static_cast<int32_t>(params.dim(0))));
  std::vector<Output> grads{ops::UnsortedSegmentSum(g, values, indices, rows), Output()};
  if (c.node->op() == "GatherV2") grads.emplace_back();
  return grads;
}

}  // namespace clab::gradients_internal
