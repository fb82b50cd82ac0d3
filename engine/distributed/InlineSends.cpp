#include "distributed/InlineSends.h"

#include "clab/core/DataType.h"
#include "clab/core/DeviceName.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"
#include "clab/runtime/Rendezvous.h"

#include <unordered_map>
#include <unordered_set>

namespace clab {
namespace {

// The bytes of the tensor `name` ("node:0") if the graph says: a variable with a full shape
// attr or a constant, reached through any number of Identity nodes, or a pack of such
// tensors. -1 when unknown.
int64_t KnownBytes(const std::unordered_map<std::string, const tensorflow::NodeDef*>& nodes, std::string name) {
  for (int hops = 0; hops < 16; ++hops) {
    auto id = TensorId::Parse(name);
    if (!id.ok() || id->index != 0) return -1;
    auto it = nodes.find(id->node);
    if (it == nodes.end()) return -1;
    const tensorflow::NodeDef& node = *it->second;
    if (node.op() == "Identity") {
      if (node.input_size() == 0) return -1;
      name = node.input(0);
      continue;
    }
    if (node.op() == "_PackTensors") {
      // The packed tensors, and a few bytes per tensor to find them again.
      int64_t total = 0;
      for (const std::string& input : node.input()) {
        const int64_t bytes = input.empty() || input[0] == '^' ? 0 : KnownBytes(nodes, input);
        if (bytes < 0) return -1;
        total += bytes + 64;
      }
      return total;
    }
    if (node.op() == "VariableV2" || node.op() == "Const") {
      DataType dtype = DT_INVALID;
      PartialShape shape;
      if (node.op() == "Const") {
        Tensor value;
        if (!GetNodeAttr(node, "value", &value).ok()) return -1;
        return static_cast<int64_t>(value.TotalBytes());
      }
      if (!GetNodeAttr(node, "dtype", &dtype).ok() || !GetNodeAttr(node, "shape", &shape).ok()) return -1;
      if (!shape.IsFullyDefined() || DataTypeSize(BaseType(dtype)) == 0) return -1;
      return shape.AsTensorShape().num_elements() * static_cast<int64_t>(DataTypeSize(BaseType(dtype)));
    }
    return -1;
  }
  return -1;
}

}  // namespace

int64_t KnownTensorBytes(const tensorflow::GraphDef& graph, const std::string& tensor) {
  std::unordered_map<std::string, const tensorflow::NodeDef*> nodes;
  for (const tensorflow::NodeDef& node : graph.node()) nodes[node.name()] = &node;
  return KnownBytes(nodes, tensor);
}

Status InlineSmallSends(StepPlan* plan, const std::string& local_task, int64_t max_bytes) {
  int local = -1;
  for (size_t p = 0; p < plan->partitions.size(); ++p)
    if (plan->partitions[p].task == local_task) local = static_cast<int>(p);
  if (local < 0) return OkStatus();

  for (size_t p = 0; p < plan->partitions.size(); ++p) {
    if (static_cast<int>(p) == local) continue;
    StepPlan::Partition& partition = plan->partitions[p];
    tensorflow::GraphDef& graph = partition.graph;
    std::unordered_map<std::string, const tensorflow::NodeDef*> nodes;
    std::unordered_set<std::string> control_targets;  // nodes something depends on by "^name"
    bool receives = false;
    for (const tensorflow::NodeDef& node : graph.node()) {
      nodes[node.name()] = &node;
      receives |= node.op() == "_Recv";
      for (const std::string& input : node.input())
        if (!input.empty() && input[0] == '^') control_targets.insert(input.substr(1));
    }
    // A partition that waits for another task could wait for the master's own task, which
    // would then wait for this reply: such partitions keep their sends.
    if (receives) continue;

    std::unordered_set<std::string> removed;
    for (const tensorflow::NodeDef& node : graph.node()) {
      if (node.op() != "_Send" || node.input_size() != 1 || control_targets.count(node.name())) continue;
      bool client_terminated = false;
      if (GetNodeAttr(node, "client_terminated", &client_terminated).ok() && client_terminated) continue;
      const std::string key = RendezvousKeyOf(node);
      std::string recv_device;
      if (key.empty() || !GetNodeAttr(node, "recv_device", &recv_device).ok()) continue;
      if (DeviceName::TaskOf(recv_device) != local_task) continue;
      const int64_t bytes = KnownBytes(nodes, node.input(0));
      if (bytes < 0 || bytes > max_bytes) continue;

      auto tensor = TensorId::Parse(node.input(0));
      if (!tensor.ok()) continue;
      const std::string fetch = StrCat(tensor->node, ":", tensor->index);
      int index = -1;
      for (size_t f = 0; f < partition.fetches.size(); ++f)
        if (partition.fetches[f] == fetch) index = static_cast<int>(f);
      if (index < 0) {
        index = static_cast<int>(partition.fetches.size());
        partition.fetches.push_back(fetch);
      }
      partition.inlined_sends.push_back({index, key});
      plan->partitions[static_cast<size_t>(local)].delivered_keys.push_back(key);
      removed.insert(node.name());
    }
    if (removed.empty()) continue;
    tensorflow::GraphDef kept;
    kept.mutable_versions()->CopyFrom(graph.versions());
    *kept.mutable_library() = graph.library();
    for (tensorflow::NodeDef& node : *graph.mutable_node())
      if (!removed.count(node.name())) kept.add_node()->Swap(&node);
    graph.Swap(&kept);
  }
  return OkStatus();
}

}  // namespace clab
