// Reads what the engine's CompileStep makes of a step (partitions per task, their _Send/_Recv
// pairs with bytes) into the simulator's StepPlan: which transfers each node waits for.
#include "model/StepPlan.h"

#include "clab/compile/CompileStep.h"
#include "clab/graph/Graph.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <set>

namespace clab::sim {
namespace {

std::vector<int64_t> Dims(const PartialShape& shape) {
  if (!shape.known_rank()) return {-1};
  return shape.dims();
}

std::string Key(const std::string& task, const std::string& node) { return task + "|" + node; }

}  // namespace

bool PlanNode::IsTransfer() const {
  return op == "_Send" || op == "_Recv" || op == "_PackTensors" || op == "_UnpackTensors";
}

std::vector<const PlanNode*> StepPlan::NodesOf(const std::string& task) const {
  std::vector<const PlanNode*> found;
  for (const PlanNode& node : nodes)
    if (node.task == task) found.push_back(&node);
  return found;
}

int64_t StepPlan::BytesBetween(const std::string& from, const std::string& to) const {
  int64_t total = 0;
  for (const PlanTransfer& transfer : transfers)
    if (transfer.from_task == from && transfer.to_task == to) total += transfer.bytes;
  return total;
}

StatusOr<StepPlan> PlanStep(const PlanRequest& request) {
  if (request.graph == nullptr) return errors::InvalidArgument("no graph to compile");
  StepPlan plan;
  plan.session_task = request.session_task;
  CompileOptions options;
  for (const auto& [job, count] : request.tasks)
    for (int i = 0; i < count; ++i) {
      const std::string task = absl::StrCat("/job:", job, "/replica:0/task:", i);
      plan.tasks.push_back(task);
      options.devices.push_back({task + "/device:CPU:0", "CPU"});
    }
  options.placer.allow_soft_placement = true;
  options.placer.default_device = request.session_task;
  options.placer.log = [](const std::string&) {};
  options.partition_by = PartitionBy::kTask;
  options.describe_transfers = true;
  CLAB_ASSIGN_OR_RETURN(const std::unique_ptr<CompiledStep> step,
                        CompileStep(*request.graph, {{}, request.fetches, request.targets}, options));
  // The nodes' shapes, for the FLOP-count model. Inference stops at the first node it cannot
  // do; nodes past it have no shapes.
  std::map<std::string, std::vector<PartialShape>> shapes;
  InferGraphShapes(*step->placed, &shapes).IgnoreError();

  // Every Send/Recv pair between two tasks, numbered.
  std::map<std::string, int> transfer_of_recv;  // Key(task, recv node) -> transfer
  std::map<std::string, int> transfer_of_send;  // Key(task, send node) -> transfer
  for (const CompiledStep::Transfer& sent : step->transfers) {
    if (sent.to < 0) continue;  // nothing of the step receives it
    PlanTransfer transfer;
    transfer.from_task = step->partitions[static_cast<size_t>(sent.from)].name;
    transfer.to_task = step->partitions[static_cast<size_t>(sent.to)].name;
    transfer.send_node = sent.send_node;
    transfer.recv_node = sent.recv_node;
    if (sent.packed.empty()) {
      transfer.tensors.push_back(sent.tensor);
    } else {
      for (const std::string& tensor : sent.packed)
        if (!tensor.empty() && tensor[0] != '^') transfer.tensors.push_back(tensor);
    }
    transfer.bytes = sent.bytes;
    if (transfer.bytes < 0)
      return errors::InvalidArgument("the size of ", absl::StrJoin(transfer.tensors, ", "), " (sent from ",
                                     transfer.from_task, " to ", transfer.to_task,
                                     ") is not known from the graph's shapes: give its shape in the graph");
    const int index = static_cast<int>(plan.transfers.size());
    transfer_of_send[Key(transfer.from_task, transfer.send_node)] = index;
    transfer_of_recv[Key(transfer.to_task, transfer.recv_node)] = index;
    plan.transfers.push_back(std::move(transfer));
  }

  // Which transfers each node waits for: those its _Recv inputs bring, and everything its
  // inputs wait for, within its partition (settled until nothing changes: a partition does
  // not list its nodes in order).
  for (const CompiledStep::Partition& partition : step->partitions) {
    const std::string& task = partition.name;
    const tensorflow::GraphDef& graph = partition.graph;
    std::map<std::string, std::set<int>> waits;
    for (const tensorflow::NodeDef& node : graph.node()) {
      const auto received = transfer_of_recv.find(Key(task, node.name()));
      waits[node.name()] = received == transfer_of_recv.end() ? std::set<int>{} : std::set<int>{received->second};
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (const tensorflow::NodeDef& node : graph.node()) {
        std::set<int>& mine = waits[node.name()];
        const size_t before = mine.size();
        for (const std::string& input : node.input()) {
          const auto it = waits.find(InputNodeName(input));
          if (it != waits.end()) mine.insert(it->second.begin(), it->second.end());
        }
        changed = changed || mine.size() != before;
      }
    }
    for (const tensorflow::NodeDef& node : graph.node()) {
      PlanNode planned;
      planned.name = node.name();
      planned.op = node.op();
      planned.task = task;
      const std::set<int>& waited = waits[node.name()];
      planned.waits_for.assign(waited.begin(), waited.end());
      planned.after_receive = !waited.empty();
      if (const Node* original = step->placed->FindNode(node.name())) {
        for (const Edge* edge : original->in_edges()) {
          if (edge->IsControl()) continue;
          const auto it = shapes.find(edge->src->name());
          planned.input_shapes.push_back(it != shapes.end() && static_cast<size_t>(edge->src_output) < it->second.size()
                                             ? Dims(it->second[static_cast<size_t>(edge->src_output)])
                                             : std::vector<int64_t>{-1});
        }
        const auto it = shapes.find(node.name());
        if (it != shapes.end())
          for (const PartialShape& shape : it->second) planned.output_shapes.push_back(Dims(shape));
      }
      const auto sent = transfer_of_send.find(Key(task, node.name()));
      if (sent != transfer_of_send.end()) {
        PlanTransfer& transfer = plan.transfers[static_cast<size_t>(sent->second)];
        transfer.waits_for = planned.waits_for;
        transfer.after_receive = planned.after_receive;
      }
      plan.nodes.push_back(std::move(planned));
    }
  }
  return plan;
}

}  // namespace clab::sim
