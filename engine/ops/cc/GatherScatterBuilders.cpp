// clab::ops wrappers for the gather and scatter ops (ops/GatherScatterOps.cpp).
#include "clab/ops/Ops.h"

namespace clab::ops {

Output Gather(GraphBuilder& g, const Output& params, const Output& indices, int axis, std::string_view name) {
  const Output axis_value =
      Const(g, Tensor::Scalar<int32_t>(axis), name.empty() ? "GatherV2/axis" : StrCat(name, "/axis"));
  return g.AddNode("GatherV2", {params, indices, axis_value}, {}, name.empty() ? "GatherV2" : name);
}

Output UnsortedSegmentSum(GraphBuilder& g, const Output& data, const Output& segment_ids, const Output& num_segments,
                          std::string_view name) {
  return g.AddNode("UnsortedSegmentSum", {data, segment_ids, num_segments}, {}, name);
}

Output ScatterSub(GraphBuilder& g, const Output& ref, const Output& indices, const Output& updates,
                  std::string_view name) {
  return g.AddNode("ScatterSub", {ref, indices, updates}, {}, name);
}

Output ScatterAdd(GraphBuilder& g, const Output& ref, const Output& indices, const Output& updates,
                  std::string_view name) {
  return g.AddNode("ScatterAdd", {ref, indices, updates}, {}, name);
}

}  // namespace clab::ops
