#include "distributed/StepPlan.h"

#include "clab/graph/AttrValues.h"
#include "clab/runtime/Rendezvous.h"
#include "distributed/InlineSends.h"
#include "distributed/PushedReceives.h"

#include <algorithm>
#include <set>

namespace clab {

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

StatusOr<std::shared_ptr<StepPlan>> BuildStepPlan(const StepPlanInputs& in) {
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<CompiledStep> compiled,
                        CompileStep(*in.graph_def, *in.graph, in.signature, in.compile));
  auto plan = std::make_shared<StepPlan>();
  for (CompiledStep::Partition& compiled_partition : compiled->partitions) {
    StepPlan::Partition partition;
    partition.task = compiled_partition.name;
    CLAB_ASSIGN_OR_RETURN(partition.worker, in.workers->GetWorker(partition.task));
    partition.graph = std::move(compiled_partition.graph);
    plan->partitions.push_back(std::move(partition));
  }
  // One call fewer per step where a ps partition both serves and waits for this task.
  if (in.inline_send_bytes > 0 && !in.local_task.empty())
    CLAB_RETURN_IF_ERROR(CutPartitionsForPushedReceives(plan.get(), in.local_task, in.inline_send_bytes));
  // Routed again when a partition was cut (a node both parts hold is the first part's).
  StepRoutes routes = std::move(compiled->routes);
  if (plan->partitions.size() != compiled->partitions.size()) {
    std::vector<const tensorflow::GraphDef*> graphs;
    for (const StepPlan::Partition& partition : plan->partitions) graphs.push_back(&partition.graph);
    CLAB_ASSIGN_OR_RETURN(routes, RouteStep(compiled->signature, graphs));
  }
  for (size_t p = 0; p < plan->partitions.size(); ++p) {
    plan->partitions[p].feeds = std::move(routes.feeds[p]);
    plan->partitions[p].fetches = std::move(routes.fetches[p]);
    plan->partitions[p].targets = std::move(routes.targets[p]);
  }
  plan->feed_routes = std::move(routes.feed_routes);
  plan->fetch_routes = std::move(routes.fetch_routes);

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
