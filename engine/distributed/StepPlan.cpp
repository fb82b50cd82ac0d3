#include "distributed/StepPlan.h"

#include "clab/core/DeviceName.h"
#include "clab/graph/AttrValues.h"
#include "clab/runtime/Rendezvous.h"
#include "clab/graph/Graph.h"
#include "clab/graph/Prune.h"
#include "clab/runtime/PackTransfers.h"
#include "clab/runtime/Partition.h"
#include "distributed/InlineSends.h"
#include "distributed/PushedReceives.h"

#include <algorithm>
#include <set>

namespace clab {
namespace {

std::string CanonicalTensorName(const TensorId& id) { return StrCat(id.node, ":", id.index); }

std::string NodeOfTarget(const std::string& target) {
  return !target.empty() && target[0] == '^' ? target.substr(1) : target;
}

StatusOr<TensorId> CheckOutputExists(const Graph& graph, const std::string& name, std::string_view role) {
  CLAB_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(name));
  const Node* node = graph.FindNode(id.node);
  if (node != nullptr && (id.index < 0 || id.index >= node->num_outputs()))
    return errors::NotFound(role, " '", name, "' is not in the graph: node '", id.node, "' (",
                            node->type_string(), ") has ", node->num_outputs(), " output(s)");
  return id;
}

}  // namespace

std::string RendezvousKeyOf(const tensorflow::NodeDef& node) {
  RendezvousKey key;
  int64_t incarnation = 0;
  if (!GetNodeAttr(node, "send_device", &key.send_device).ok() ||
      !GetNodeAttr(node, "send_device_incarnation", &incarnation).ok() ||
      !GetNodeAttr(node, "recv_device", &key.recv_device).ok() ||
      !GetNodeAttr(node, "tensor_name", &key.tensor_name).ok())
    return "";
  key.send_incarnation = static_cast<uint64_t>(incarnation);
  return key.ToString();
}

std::string TaskOfDevice(const std::string& device) {
  auto name = DeviceName::Parse(device);
  if (!name.ok() || !name->has_job || !name->has_task) return "";
  return DeviceName::TaskPrefix(name->job, name->task, name->has_replica ? name->replica : 0);
}

StatusOr<std::shared_ptr<StepPlan>> BuildStepPlan(const StepPlanInputs& in) {
  std::vector<std::string> target_nodes;
  for (const std::string& target : in.targets) target_nodes.push_back(NodeOfTarget(target));

  tensorflow::GraphDef pruned;
  CLAB_RETURN_IF_ERROR(PruneGraph(*in.graph, in.feeds, in.fetches, target_nodes, &pruned));
  for (tensorflow::NodeDef& node : *pruned.mutable_node()) {
    auto placed = in.stateful_placement->find(node.name());
    if (placed != in.stateful_placement->end()) node.set_device(placed->second);
  }
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, Graph::FromGraphDef(pruned));
  CLAB_RETURN_IF_ERROR(PlaceGraph(graph.get(), *in.devices, in.placer));
  for (const Node* node : graph->nodes()) {
    if (node->op_def().is_stateful) (*in.stateful_placement)[node->name()] = node->assigned_device();
  }

  std::unordered_map<std::string, std::string> task_of_device;
  for (const AvailableDevice& device : *in.devices) task_of_device[device.name] = TaskOfDevice(device.name);
  auto task_of = [&task_of_device](const std::string& device) {
    auto it = task_of_device.find(device);
    return it != task_of_device.end() ? it->second : TaskOfDevice(device);
  };
  // One message per pair of devices on different tasks rather than one per tensor.
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Graph> packed, PackCrossTaskTransfers(*graph, task_of));
  if (packed) graph = std::move(packed);
  PartitionOptions partition_options;
  partition_options.partition_of = task_of;
  partition_options.incarnation_of = [&in](const std::string& device) {
    auto it = in.incarnations->find(device);
    return it == in.incarnations->end() ? uint64_t{0} : it->second;
  };
  std::map<std::string, tensorflow::GraphDef> partition_graphs;
  CLAB_RETURN_IF_ERROR(PartitionGraph(*graph, partition_options, &partition_graphs));

  auto plan = std::make_shared<StepPlan>();
  for (auto& [task, partition_graph] : partition_graphs) {
    StepPlan::Partition partition;
    partition.task = task;
    CLAB_ASSIGN_OR_RETURN(partition.worker, in.workers->GetWorker(task));
    partition.graph = std::move(partition_graph);
    plan->partitions.push_back(std::move(partition));
  }
  // One call fewer per step where a ps partition both serves and waits for this task.
  if (in.inline_send_bytes > 0 && !in.local_task.empty())
    CLAB_RETURN_IF_ERROR(CutPartitionsForPushedReceives(plan.get(), in.local_task, in.inline_send_bytes));
  // Where each node runs (a node both parts of a cut partition hold: the first part).
  std::unordered_map<std::string, int> partition_of_name;
  for (size_t p = 0; p < plan->partitions.size(); ++p)
    for (const tensorflow::NodeDef& node : plan->partitions[p].graph.node())
      partition_of_name.try_emplace(node.name(), static_cast<int>(p));
  auto partition_of_node = [&](const std::string& node) -> int {
    auto it = partition_of_name.find(node);
    return it == partition_of_name.end() ? -1 : it->second;
  };

  for (const std::string& feed : in.feeds) {
    CLAB_ASSIGN_OR_RETURN(TensorId id, CheckOutputExists(*graph, feed, "Feed"));
    PlanRoute route{partition_of_node(id.node), 0};
    if (route.partition >= 0) {
      auto& feeds = plan->partitions[static_cast<size_t>(route.partition)].feeds;
      route.index = static_cast<int>(feeds.size());
      feeds.push_back(CanonicalTensorName(id));
    }
    plan->feed_routes[feed] = route;
  }
  // "x" and "x:0" are one tensor: the worker fetches it once and both names read it.
  std::map<std::string, PlanRoute> route_of_tensor;
  for (const std::string& fetch : in.fetches) {
    CLAB_ASSIGN_OR_RETURN(TensorId id, CheckOutputExists(*graph, fetch, "Fetch"));
    const std::string name = CanonicalTensorName(id);
    auto [it, inserted] = route_of_tensor.try_emplace(name);
    if (inserted) {
      it->second.partition = partition_of_node(id.node);
      if (it->second.partition < 0) return errors::Internal("Fetch '", fetch, "' was pruned away");
      auto& fetches = plan->partitions[static_cast<size_t>(it->second.partition)].fetches;
      it->second.index = static_cast<int>(fetches.size());
      fetches.push_back(name);
    }
    plan->fetch_routes[fetch] = it->second;
  }
  for (const std::string& node : target_nodes) {
    const int partition = partition_of_node(node);
    if (partition >= 0) plan->partitions[static_cast<size_t>(partition)].targets.push_back(node);
  }

  if (in.inline_send_bytes > 0 && !in.local_task.empty())
    CLAB_RETURN_IF_ERROR(InlineSmallSends(plan.get(), in.local_task, in.inline_send_bytes));

  for (const StepPlan::Partition& partition : plan->partitions) {
    std::set<std::string> handed(partition.delivered_keys.begin(), partition.delivered_keys.end());
    handed.insert(partition.pushed_keys.begin(), partition.pushed_keys.end());
    // Self-cleaning: it sends nothing and receives only what the master hands it, so after
    // a good step nothing of it is left on its worker.
    bool self_cleaning = true;
    for (const tensorflow::NodeDef& node : partition.graph.node()) {
      if (node.op() == "_Send") self_cleaning = false;
      if (node.op() == "_Recv" && !handed.count(RendezvousKeyOf(node))) self_cleaning = false;
    }
    const auto add_once = [](std::vector<WorkerInterface*>& workers, WorkerInterface* worker) {
      if (std::find(workers.begin(), workers.end(), worker) == workers.end()) workers.push_back(worker);
    };
    add_once(plan->workers, partition.worker);
    if (!self_cleaning) add_once(plan->workers_to_clean, partition.worker);
  }
  for (const StepPlan::Partition& partition : plan->partitions) {
    plan->fetch_offset.push_back(plan->num_fetches);
    plan->num_fetches += static_cast<int>(partition.fetches.size());
  }
  return plan;
}

}  // namespace clab
