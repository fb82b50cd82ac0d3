#include "clab/train/Gradients.h"

#include "clab/graph/Graph.h"
#include "clab/ops/Ops.h"
#include "train/GradientFunctions.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>

namespace clab {
namespace {

using gradients_internal::FindGradFn;
using gradients_internal::GradContext;

std::string TensorName(const std::string& node, int index) { return StrCat(node, ":", index); }

// The data inputs of a node as (node, index); control inputs are left out.
std::vector<std::pair<std::string, int>> DataInputs(const tensorflow::NodeDef& node) {
  std::vector<std::pair<std::string, int>> inputs;
  for (const std::string& input : node.input()) {
    if (!input.empty() && input[0] == '^') continue;
    auto id = TensorId::Parse(input);
    if (id.ok()) inputs.emplace_back(id->node, id->index);
  }
  return inputs;
}

Output SumAll(GraphBuilder& g, const std::vector<Output>& terms) {
  Output total = terms.front();
  for (size_t i = 1; i < terms.size(); ++i) total = ops::Add(g, total, terms[i]);
  return total;
}

}  // namespace

bool HasGradient(const std::string& op) { return FindGradFn(op) != nullptr; }

StatusOr<std::vector<Output>> Gradients(GraphBuilder& g, const Output& y, const std::vector<Output>& xs) {
  CLAB_RETURN_IF_ERROR(g.status());
  const tensorflow::GraphDef forward = g.graph_def();  // the graph before any backward op
  std::unordered_map<std::string, const tensorflow::NodeDef*> nodes;
  std::unordered_map<std::string, std::vector<std::string>> consumers;
  for (const tensorflow::NodeDef& node : forward.node()) {
    nodes[node.name()] = &node;
    for (const auto& [input, index] : DataInputs(node)) consumers[input].push_back(node.name());
  }
  if (!nodes.count(y.node())) return errors::NotFound("Gradients: y '", y.name(), "' is not in the graph");
  const DataType y_type = g.TypeOf(y);
  if (y_type != DT_FLOAT && y_type != DT_DOUBLE)
    return errors::InvalidArgument("Gradients: y '", y.name(), "' is ", DataTypeName(y_type),
                                   "; gradients start from a float or double tensor");

  // The nodes between the xs and y: reached backwards from y and forwards from an x.
  std::set<std::string> from_y;
  std::deque<std::string> queue{y.node()};
  while (!queue.empty()) {
    const std::string name = queue.front();
    queue.pop_front();
    if (!from_y.insert(name).second) continue;
    for (const auto& [input, index] : DataInputs(*nodes.at(name))) queue.push_back(input);
  }
  std::set<std::string> from_x;
  for (const Output& x : xs) {
    if (!nodes.count(x.node())) return errors::NotFound("Gradients: x '", x.name(), "' is not in the graph");
    queue.push_back(x.node());
  }
  while (!queue.empty()) {
    const std::string name = queue.front();
    queue.pop_front();
    if (!from_x.insert(name).second) continue;
    for (const std::string& consumer : consumers[name]) queue.push_back(consumer);
  }
  std::set<std::string> on_path;
  std::set_intersection(from_y.begin(), from_y.end(), from_x.begin(), from_x.end(),
                        std::inserter(on_path, on_path.begin()));

  // Reverse topological order over the path: a node is done once every consumer on the
  // path has handed it its gradient.
  std::unordered_map<std::string, int> pending;
  for (const std::string& name : on_path)
    for (const std::string& consumer : consumers[name])
      if (on_path.count(consumer)) ++pending[name];

  std::map<std::string, std::vector<Output>> grads;  // tensor name -> contributions
  auto name_scope = g.WithNameScope("gradients");
  {
    auto colocate = g.ColocateWith(y);
    grads[y.name()].push_back(ops::OnesLike(g, y, "ones_like"));
  }
  std::deque<std::string> ready;
  for (const std::string& name : on_path)
    if (pending[name] == 0) ready.push_back(name);
  while (!ready.empty()) {
    const std::string name = ready.front();
    ready.pop_front();
    const tensorflow::NodeDef& node = *nodes.at(name);
    const auto inputs = DataInputs(node);
    auto contributions = grads.find(TensorName(name, 0));
    const bool feeds_path =
        std::any_of(inputs.begin(), inputs.end(), [&](const auto& in) { return on_path.count(in.first) > 0; });
    if (contributions != grads.end() && feeds_path) {
      const auto* fn = FindGradFn(node.op());
      if (fn == nullptr)
        return errors::Unimplemented("No gradient is defined for op ", node.op(), " (node '", name,
                                     "'), which lies between the loss and a variable");
      auto colocate = g.ColocateWith(Output(name));
      GradContext context;
      context.graph = &g;
      context.node = &node;
      for (const auto& [input, index] : inputs) context.inputs.emplace_back(input, index);
      context.output = Output(name, 0);
      context.grad = SumAll(g, contributions->second);
      contributions->second = {context.grad};
      CLAB_ASSIGN_OR_RETURN(std::vector<Output> input_grads, (*fn)(context));
      CLAB_RETURN_IF_ERROR(g.status());
      for (size_t i = 0; i < inputs.size() && i < input_grads.size(); ++i) {
        if (!on_path.count(inputs[i].first) || !input_grads[i].valid()) continue;
        grads[TensorName(inputs[i].first, inputs[i].second)].push_back(input_grads[i]);
      }
    }
    for (const auto& [input, index] : inputs) {
      if (!on_path.count(input)) continue;
      if (--pending[input] == 0) ready.push_back(input);
    }
  }

  std::vector<Output> result;
  for (const Output& x : xs) {
    auto found = grads.find(x.name());
    if (found == grads.end() || found->second.empty()) {
      result.emplace_back();  // y does not depend on x
      continue;
    }
    auto colocate = g.ColocateWith(x);
    result.push_back(SumAll(g, found->second));
  }
  CLAB_RETURN_IF_ERROR(g.status());
  return result;
}

}  // namespace clab
