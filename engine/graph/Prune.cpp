#include "clab/graph/Prune.h"

#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"
#include "clab/graph/OpRegistry.h"

#include <deque>
#include <map>
#include <set>

namespace clab {
namespace {

// The output types of `node`, or nothing when its op is unknown or its attrs incomplete
// (pruning works on any GraphDef; validation is Graph::FromGraphDef's job).
std::vector<DataType> OutputTypesOf(const tensorflow::NodeDef& node) {
  const OpDef* op = OpRegistry::Global().Find(node.op());
  if (op == nullptr) return {};
  tensorflow::NodeDef with_defaults = node;
  if (!AddDefaultsAndValidate(*op, &with_defaults).ok()) return {};
  std::vector<DataType> inputs, outputs;
  if (!InOutTypesForNode(with_defaults, *op, &inputs, &outputs).ok()) return {};
  return outputs;
}

// A node whose single output is fed stands in for its whole upstream: it becomes a
// Placeholder of the same name, type and device, so the pruned graph still validates and
// the executor feeds it. References are kept as they are: a variable is its own state.
bool ReplaceFedNodeWithPlaceholder(const tensorflow::NodeDef& node, tensorflow::NodeDef* out) {
  if (node.input_size() == 0 || OpRegistry::Global().Find("Placeholder") == nullptr) return false;
  const std::vector<DataType> outputs = OutputTypesOf(node);
  if (outputs.size() != 1 || IsRefType(outputs[0])) return false;
  out->Clear();
  out->set_name(node.name());
  out->set_op("Placeholder");
  out->set_device(node.device());
  (*out->mutable_attr())["dtype"] = AttrOf(outputs[0]);
  auto colocation = node.attr().find("_class");
  if (colocation != node.attr().end()) (*out->mutable_attr())["_class"] = colocation->second;
  return true;
}

}  // namespace

Status PruneGraph(const tensorflow::GraphDef& graph, const std::vector<std::string>& feeds,
                  const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                  tensorflow::GraphDef* pruned) {
  std::map<std::string_view, int> index_of;
  for (int i = 0; i < graph.node_size(); ++i) index_of.emplace(graph.node(i).name(), i);

  auto resolve = [&](const std::string& name, std::string_view role, bool tensor) -> StatusOr<TensorId> {
    TensorId id;
    if (tensor) {
      CLAB_ASSIGN_OR_RETURN(id, TensorId::Parse(name));
    } else {
      id.node = name.size() > 0 && name[0] == '^' ? name.substr(1) : name;
    }
    if (!index_of.count(id.node))
      return errors::NotFound(role, " '", name, "' names node '", id.node, "', which is not in the graph");
    return id;
  };

  std::set<std::pair<std::string, int>> fed;
  for (const auto& feed : feeds) {
    CLAB_ASSIGN_OR_RETURN(TensorId id, resolve(feed, "Feed", true));
    fed.emplace(id.node, id.index);
  }

  std::vector<bool> needed(static_cast<size_t>(graph.node_size()), false);
  std::deque<int> queue;
  auto visit = [&](const std::string& node) {
    int index = index_of.at(node);
    if (!needed[static_cast<size_t>(index)]) {
      needed[static_cast<size_t>(index)] = true;
      queue.push_back(index);
    }
  };
  for (const auto& fetch : fetches) {
    CLAB_ASSIGN_OR_RETURN(TensorId id, resolve(fetch, "Fetch", true));
    visit(id.node);
  }
  for (const auto& target : targets) {
    CLAB_ASSIGN_OR_RETURN(TensorId id, resolve(target, "Target", false));
    visit(id.node);
  }

  std::map<int, tensorflow::NodeDef> replaced;
  while (!queue.empty()) {
    const int index = queue.front();
    queue.pop_front();
    const tensorflow::NodeDef& node = graph.node(index);
    if (fed.count({node.name(), 0})) {
      tensorflow::NodeDef placeholder;
      if (ReplaceFedNodeWithPlaceholder(node, &placeholder)) {
        replaced.emplace(index, std::move(placeholder));
        continue;
      }
    }
    for (const auto& input : node.input()) {
      CLAB_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(input));
      if (!index_of.count(id.node))
        return errors::NotFound("Node '", node.name(), "' has input '", input, "', which is not in the graph");
      visit(id.node);
    }
  }

  pruned->Clear();
  *pruned->mutable_versions() = graph.versions();
  *pruned->mutable_library() = graph.library();
  for (int i = 0; i < graph.node_size(); ++i) {
    if (!needed[static_cast<size_t>(i)]) continue;
    auto it = replaced.find(i);
    *pruned->add_node() = it != replaced.end() ? it->second : graph.node(i);
  }
  return OkStatus();
}

}  // namespace clab
