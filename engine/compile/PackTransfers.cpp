#include "clab/compile/PackTransfers.h"

#include "clab/graph/AttrValues.h"

#include <map>
#include <set>
#include <unordered_map>

namespace clab {
namespace {

struct Consumer {
  std::string node;
  int input;
};

struct Group {
  std::vector<std::pair<std::string, int>> tensors;  // (node, output), in first-seen order
  std::vector<DataType> types;
  std::vector<std::vector<Consumer>> consumers;  // per tensor
};

}  // namespace

StatusOr<std::unique_ptr<Graph>> PackCrossTaskTransfers(
    const Graph& graph, const std::function<std::string(const std::string& device)>& task_of) {
  tensorflow::GraphDef rewritten = graph.ToGraphDef(/*with_assigned_devices=*/true);
  tensorflow::GraphDef* out = &rewritten;
  // Whether an edge joins two placed nodes of different tasks.
  auto crosses = [&task_of](const Edge* edge) {
    const std::string& from = edge->src->assigned_device();
    const std::string& to = edge->dst->assigned_device();
    return !from.empty() && !to.empty() && task_of(from) != task_of(to);
  };
  // (source device, destination device) -> the tensors crossing between them.
  std::map<std::pair<std::string, std::string>, Group> groups;
  // Tasks that receive anything from another task. A task that only sends returns its small
  // tensors inside its RunGraph reply already (distributed/InlineSends), which beats packing.
  std::set<std::string> receiving;
  for (const Node* node : graph.nodes())
    for (const Edge* edge : node->in_edges())
      if (crosses(edge)) receiving.insert(task_of(node->assigned_device()));
  for (const Node* node : graph.nodes()) {
    for (const Edge* edge : node->in_edges()) {
      if (edge->IsControl()) continue;
      const Node* src = edge->src;
      const std::string& from = src->assigned_device();
      const std::string& to = node->assigned_device();
      if (!crosses(edge) || !receiving.count(task_of(from))) continue;
      const DataType type = src->output_types()[static_cast<size_t>(edge->src_output)];
      if (IsRefType(type) || type == DT_STRING || type == tensorflow::DT_RESOURCE) continue;
      Group& group = groups[{from, to}];
      const std::pair<std::string, int> tensor{src->name(), edge->src_output};
      size_t k = 0;
      while (k < group.tensors.size() && group.tensors[k] != tensor) ++k;
      if (k == group.tensors.size()) {
        group.tensors.push_back(tensor);
        group.types.push_back(type);
        group.consumers.emplace_back();
      }
      group.consumers[k].push_back({node->name(), edge->dst_input});
    }
  }

  std::unordered_map<std::string, int> index;
  for (int i = 0; i < out->node_size(); ++i) index[out->node(i).name()] = i;
  int changes = 0;
  // A NoOp that nothing consumes (a train op) waits on other tasks only to say "they are
  // done", which the end of the step says anyway: every partition runs to completion before
  // the step ends. Those control edges would each cost a message; drop them.
  for (const Node* node : graph.nodes()) {
    if (node->type_string() != "NoOp" || !node->out_edges().empty() || node->assigned_device().empty()) continue;
    tensorflow::NodeDef* def = out->mutable_node(index.at(node->name()));
    for (const Edge* edge : node->in_edges()) {
      if (!edge->IsControl() || !crosses(edge)) continue;
      auto* inputs = def->mutable_input();
      for (int i = inputs->size() - 1; i >= 0; --i)
        if (inputs->Get(i) == "^" + edge->src->name()) {
          inputs->erase(inputs->begin() + i);
          ++changes;
        }
    }
  }
  int packed = 0;
  for (const auto& [devices, group] : groups) {
    if (group.tensors.size() < 2) continue;
    const tensorflow::GraphDef before = *out;
    std::string name = StrCat("pack_transfers_", packed);
    while (index.count(name) || index.count(name + "/unpack")) name += "_";
    tensorflow::NodeDef* pack = out->add_node();
    pack->set_name(name);
    pack->set_op("_PackTensors");
    pack->set_device(devices.first);
    for (const auto& [node, output] : group.tensors) pack->add_input(StrCat(node, ":", output));
    (*pack->mutable_attr())["T"] = AttrOf(group.types);
    tensorflow::NodeDef* unpack = out->add_node();
    unpack->set_name(name + "/unpack");
    unpack->set_op("_UnpackTensors");
    unpack->set_device(devices.second);
    unpack->add_input(name + ":0");
    (*unpack->mutable_attr())["out_types"] = AttrOf(group.types);
    for (size_t k = 0; k < group.tensors.size(); ++k)
      for (const Consumer& consumer : group.consumers[k])
        out->mutable_node(index.at(consumer.node))->set_input(consumer.input, StrCat(name, "/unpack:", k));
    // The graph loader refuses cycles: a group whose tensors wait on an answer from the other
    // side would make one, and is left as it was.
    if (!Graph::FromGraphDef(*out).ok()) {
      *out = before;
      continue;
    }
    ++packed;
  }
  if (packed + changes == 0) return std::unique_ptr<Graph>();
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Graph> result, Graph::FromGraphDef(rewritten));
  for (Node* node : result->nodes()) node->set_assigned_device(node->requested_device());
  return result;
}

}  // namespace clab
