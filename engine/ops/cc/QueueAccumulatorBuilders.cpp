// clab::ops wrappers for the queue and accumulator ops (ops/QueueOps.cpp, ops/AccumulatorOps.cpp).
#include "clab/graph/AttrValues.h"
#include "clab/ops/Ops.h"

namespace clab::ops {
namespace {

tensorflow::AttrValue ShapesAttr(const std::vector<PartialShape>& shapes) {
  tensorflow::AttrValue value;
  auto* list = value.mutable_list();
  for (const PartialShape& shape : shapes) shape.AsProto(list->add_shape());
  return value;
}

std::vector<DataType> TypesOf(GraphBuilder& g, const std::vector<Output>& outputs) {
  std::vector<DataType> types;
  for (const Output& output : outputs) types.push_back(BaseType(g.TypeOf(output)));
  return types;
}

std::vector<Output> WithHandle(const Output& handle, const std::vector<Output>& components) {
  std::vector<Output> inputs{handle};
  inputs.insert(inputs.end(), components.begin(), components.end());
  return inputs;
}

}  // namespace

Output FIFOQueue(GraphBuilder& g, const std::vector<DataType>& component_types, const std::vector<PartialShape>& shapes,
                 int64_t capacity, std::string_view shared_name, std::string_view name) {
  return g.AddNode("FIFOQueue", {},
                   {{"component_types", AttrOf(component_types)},
                    {"shapes", ShapesAttr(shapes)},
                    {"capacity", AttrOf(capacity)},
                    {"shared_name", AttrOf(shared_name)}},
                   name);
}

Output QueueEnqueue(GraphBuilder& g, const Output& handle, const std::vector<Output>& components,
                    std::string_view name) {
  return g.AddNode("QueueEnqueue", WithHandle(handle, components), {{"Tcomponents", AttrOf(TypesOf(g, components))}},
                   name);
}

Output QueueEnqueueMany(GraphBuilder& g, const Output& handle, const std::vector<Output>& components,
                        std::string_view name) {
  return g.AddNode("QueueEnqueueMany", WithHandle(handle, components),
                   {{"Tcomponents", AttrOf(TypesOf(g, components))}}, name);
}

std::vector<Output> QueueDequeue(GraphBuilder& g, const Output& handle, const std::vector<DataType>& component_types,
                                 std::string_view name) {
  Output first = g.AddNode("QueueDequeue", {handle}, {{"component_types", AttrOf(component_types)}}, name);
  return g.Outputs(first.node());
}

Output QueueClose(GraphBuilder& g, const Output& handle, bool cancel_pending_enqueues, std::string_view name) {
  return g.AddNode("QueueClose", {handle}, {{"cancel_pending_enqueues", AttrOf(cancel_pending_enqueues)}}, name);
}

Output QueueSize(GraphBuilder& g, const Output& handle, std::string_view name) {
  return g.AddNode("QueueSize", {handle}, {}, name);
}

Output ConditionalAccumulator(GraphBuilder& g, DataType dtype, const PartialShape& shape, std::string_view shared_name,
                              std::string_view name) {
  return g.AddNode("ConditionalAccumulator", {},
                   {{"dtype", AttrOf(dtype)}, {"shape", AttrOf(shape)}, {"shared_name", AttrOf(shared_name)}}, name);
}

Output AccumulatorApplyGradient(GraphBuilder& g, const Output& handle, const Output& local_step, const Output& gradient,
                                std::string_view name) {
  return g.AddNode("AccumulatorApplyGradient", {handle, local_step, gradient},
                   {{"dtype", AttrOf(BaseType(g.TypeOf(gradient)))}}, name);
}

Output AccumulatorTakeGradient(GraphBuilder& g, const Output& handle, const Output& num_required, DataType dtype,
                               std::string_view name) {
  return g.AddNode("AccumulatorTakeGradient", {handle, num_required}, {{"dtype", AttrOf(dtype)}}, name);
}

Output AccumulatorSetGlobalStep(GraphBuilder& g, const Output& handle, const Output& new_global_step,
                                std::string_view name) {
  return g.AddNode("AccumulatorSetGlobalStep", {handle, new_global_step}, {}, name);
}

Output AccumulatorNumAccumulated(GraphBuilder& g, const Output& handle, std::string_view name) {
  return g.AddNode("AccumulatorNumAccumulated", {handle}, {}, name);
}

}  // namespace clab::ops
