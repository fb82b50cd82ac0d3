#include "distributed/PushedReceives.h"

#include "clab/core/DeviceName.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"
#include "clab/runtime/Rendezvous.h"
#include "distributed/InlineSends.h"

#include <optional>

#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace clab {
namespace {

bool IsVariable(const std::string& op) { return op == "VariableV2" || op == "Variable" || op == "VarHandleOp"; }

// The second part of `partition`, or nothing when it should stay whole. Removes from
// `partition` what only the second part runs.
std::optional<StepPlan::Partition> Cut(StepPlan::Partition& partition, const std::string& local_task,
                                       int64_t max_bytes) {
  const tensorflow::GraphDef& graph = partition.graph;
  std::unordered_map<std::string, int> index;
  std::vector<std::vector<int>> consumers(static_cast<size_t>(graph.node_size()));
  for (int i = 0; i < graph.node_size(); ++i) index[graph.node(i).name()] = i;
  for (int i = 0; i < graph.node_size(); ++i)
    for (const std::string& input : graph.node(i).input()) {
      auto it = index.find(InputNodeName(input));
      if (it != index.end()) consumers[static_cast<size_t>(it->second)].push_back(i);
    }

  // Everything that waits for a tensor of another task; all of those must come from the
  // master's own task.
  std::vector<char> waits(static_cast<size_t>(graph.node_size()), 0);
  std::vector<int> stack;
  std::vector<std::string> pushed_keys;
  for (int i = 0; i < graph.node_size(); ++i) {
    const tensorflow::NodeDef& node = graph.node(i);
    if (node.op() != "_Recv") continue;
    std::string send_device;
    bool client_terminated = false;
    if (!GetNodeAttr(node, "send_device", &send_device).ok() || DeviceName::TaskOf(send_device) != local_task)
      return {};
    if (GetNodeAttr(node, "client_terminated", &client_terminated).ok() && client_terminated) return {};
    const std::string key = RendezvousKeyOf(node);
    if (key.empty()) return {};
    pushed_keys.push_back(key);
    stack.push_back(i);
  }
  if (stack.empty()) return {};
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    if (waits[static_cast<size_t>(i)]) continue;
    waits[static_cast<size_t>(i)] = 1;
    for (int consumer : consumers[static_cast<size_t>(i)]) stack.push_back(consumer);
  }
  // Worth it only when something goes to the master's task without waiting, small enough
  // to come back in the RunGraph reply (big tensors keep their zero-copy RecvTensor).
  bool early_send = false;
  for (int i = 0; i < graph.node_size(); ++i) {
    const tensorflow::NodeDef& node = graph.node(i);
    std::string recv_device;
    if (node.op() != "_Send" || waits[static_cast<size_t>(i)] || !GetNodeAttr(node, "recv_device", &recv_device).ok() ||
        DeviceName::TaskOf(recv_device) != local_task)
      continue;
    const int64_t bytes = node.input_size() == 1 ? KnownTensorBytes(graph, node.input(0)) : -1;
    if (bytes < 0 || bytes > max_bytes) return {};
    early_send = true;
  }
  if (!early_send) return {};

  // The second part: what waits, and what that needs from the rest (computed again there).
  std::vector<char> second(waits);
  for (int i = 0; i < graph.node_size(); ++i)
    if (waits[static_cast<size_t>(i)]) stack.push_back(i);
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    for (const std::string& input : graph.node(i).input()) {
      auto it = index.find(InputNodeName(input));
      if (it == index.end() || second[static_cast<size_t>(it->second)]) continue;
      const tensorflow::NodeDef& needed = graph.node(it->second);
      // Only a variable itself (one per name on the task, so both parts hold the same one)
      // and constants: a read of a variable computed again would see a later value.
      if (!IsVariable(needed.op()) && needed.op() != "Const") return {};
      second[static_cast<size_t>(it->second)] = 1;
      stack.push_back(it->second);
    }
  }

  StepPlan::Partition part;
  part.task = partition.task;
  part.worker = partition.worker;
  part.pushed_keys = std::move(pushed_keys);
  tensorflow::GraphDef first;
  first.mutable_versions()->CopyFrom(graph.versions());
  *first.mutable_library() = graph.library();
  part.graph.mutable_versions()->CopyFrom(graph.versions());
  *part.graph.mutable_library() = graph.library();
  for (int i = 0; i < graph.node_size(); ++i) {
    if (second[static_cast<size_t>(i)]) *part.graph.add_node() = graph.node(i);
    if (!waits[static_cast<size_t>(i)]) *first.add_node() = graph.node(i);
  }
  partition.graph.Swap(&first);
  return part;
}

}  // namespace

Status CutPartitionsForPushedReceives(StepPlan* plan, const std::string& local_task, int64_t max_bytes) {
  bool has_local = false;
  for (const StepPlan::Partition& partition : plan->partitions) has_local |= partition.task == local_task;
  if (!has_local) return OkStatus();
  const size_t count = plan->partitions.size();
  for (size_t p = 0; p < count; ++p) {
    if (plan->partitions[p].task == local_task) continue;
    std::optional<StepPlan::Partition> second = Cut(plan->partitions[p], local_task, max_bytes);
    if (!second) continue;
    for (const StepPlan::Partition& partition : plan->partitions)
      if (partition.task == local_task) second->pushed_from = partition.worker;
    plan->partitions.push_back(std::move(*second));
  }
  return OkStatus();
}

}  // namespace clab
