#include "clab/train/GlobalStep.h"

#include "clab/graph/GraphKeys.h"
#include "clab/ops/Ops.h"

namespace clab {

std::optional<Output> GetGlobalStep(const GraphBuilder& graph) {
  const auto& collection = graph.Collection(GraphKeys::kGlobalStep);
  if (collection.size() == 1) return Output(collection.front());
  if (graph.FindNode("global_step") != nullptr) return Output("global_step");
  return std::nullopt;
}

Output GetOrCreateGlobalStep(GraphBuilder& graph) {
  if (auto existing = GetGlobalStep(graph)) return *existing;
  // Created at the root name scope, whatever scope the caller is in, like TensorFlow.
  auto root = graph.WithNameScope("");
  auto zero = ops::Const(graph, Tensor::Scalar<int64_t>(0), "global_step/Initializer/zeros");
  ops::Variable var = ops::MakeVariable(graph, zero, "global_step", /*trainable=*/false);
  graph.AddToCollection(GraphKeys::kGlobalStep, var.var.node());
  return var.var;
}

std::string GlobalStepReadTensor(const Output& global_step) { return global_step.node() + "/read:0"; }

Output IncrementGlobalStep(GraphBuilder& graph, const Output& global_step, std::string_view name) {
  auto colocate = graph.ColocateWith(global_step);
  auto one = ops::Const(graph, Tensor::Scalar<int64_t>(1), StrCat(name, "/one"));
  return ops::AssignAdd(graph, global_step, one, name);
}

}  // namespace clab
