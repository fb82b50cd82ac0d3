// The adapter between the simulator and the engine's compile pipeline: the only file that
// calls PruneGraph, PlaceGraph, PackCrossTaskTransfers and PartitionGraph, so that moving to
// one compile step of the engine touches nothing else.
#include "model/CompiledStep.h"

#include "clab/graph/Graph.h"
#include "clab/graph/Prune.h"
#include "clab/runtime/PackTransfers.h"
#include "clab/runtime/Partition.h"
#include "clab/runtime/Placer.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <set>

namespace clab::sim {
namespace {

std::string TaskOf(const std::string& device) {
  const size_t at = device.find("/device:");
  return at == std::string::npos ? device : device.substr(0, at);
}

std::string AttrString(const tensorflow::NodeDef& node, const char* name) {
  const auto it = node.attr().find(name);
  return it == node.attr().end() ? std::string() : it->second.s();
}

using ShapeMap = std::map<std::string, std::vector<PartialShape>>;

// Bytes of one output from the inferred shapes; -1 when they do not say.
int64_t OutputBytes(const Graph& graph, const ShapeMap& shapes, const std::string& tensor) {
  StatusOr<TensorId> id = TensorId::Parse(tensor);
  if (!id.ok()) return -1;
  const Node* node = graph.FindNode(id->node);
  if (!node || id->index < 0 || id->index >= node->num_outputs()) return -1;
  if (node->type_string() == "_PackTensors") {
    int64_t total = 0;
    for (const std::string& input : node->def().input()) {
      const int64_t bytes = OutputBytes(graph, shapes, input);
      if (bytes < 0) return -1;
      total += bytes;
    }
    return total;
  }
  const auto it = shapes.find(id->node);
  if (it == shapes.end() || static_cast<size_t>(id->index) >= it->second.size()) return -1;
  const PartialShape& shape = it->second[static_cast<size_t>(id->index)];
  const DataType dtype = BaseType(node->output_types()[static_cast<size_t>(id->index)]);
  if (!shape.IsFullyDefined() || dtype == DT_STRING) return -1;
  return shape.num_elements() * static_cast<int64_t>(DataTypeSize(dtype));
}

std::vector<int64_t> Dims(const PartialShape& shape) {
  if (!shape.known_rank()) return {-1};
  return shape.dims();
}

}  // namespace

bool CompiledNode::IsTransfer() const {
  return op == "_Send" || op == "_Recv" || op == "_PackTensors" || op == "_UnpackTensors";
}

std::vector<const CompiledNode*> CompiledStep::NodesOf(const std::string& task) const {
  std::vector<const CompiledNode*> found;
  for (const CompiledNode& node : nodes)
    if (node.task == task) found.push_back(&node);
  return found;
}

int64_t CompiledStep::BytesBetween(const std::string& from, const std::string& to) const {
  int64_t total = 0;
  for (const CompiledTransfer& transfer : transfers)
    if (transfer.from_task == from && transfer.to_task == to) total += transfer.bytes;
  return total;
}

StatusOr<CompiledStep> CompileStep(const CompileRequest& request) {
  if (request.graph == nullptr) return errors::InvalidArgument("no graph to compile");
  CompiledStep step;
  step.session_task = request.session_task;
  std::vector<AvailableDevice> devices;
  for (const auto& [job, count] : request.tasks)
    for (int i = 0; i < count; ++i) {
      const std::string task = absl::StrCat("/job:", job, "/replica:0/task:", i);
      step.tasks.push_back(task);
      devices.push_back({task + "/device:CPU:0", "CPU"});
    }

  tensorflow::GraphDef pruned;
  CLAB_RETURN_IF_ERROR(PruneGraph(*request.graph, {}, request.fetches, request.targets, &pruned));
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Graph> placed, Graph::FromGraphDef(pruned));
  PlacerOptions placer;
  placer.allow_soft_placement = true;
  placer.default_device = request.session_task;
  placer.log = [](const std::string&) {};
  CLAB_RETURN_IF_ERROR(PlaceGraph(placed.get(), devices, placer));
  // Shapes of the graph as placed (pack nodes carry bytes, not shapes). Inference stops at
  // the first node it cannot do; transfers past it are reported below, by name.
  ShapeMap shapes;
  InferGraphShapes(*placed, &shapes).IgnoreError();

  const auto task_of = [](const std::string& device) { return TaskOf(device); };
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Graph> packed, PackCrossTaskTransfers(*placed, task_of));
  const Graph& cut = packed ? *packed : *placed;
  PartitionOptions options;
  options.partition_of = task_of;
  options.incarnation_of = [](const std::string&) { return uint64_t{1}; };
  std::map<std::string, tensorflow::GraphDef> partitions;
  CLAB_RETURN_IF_ERROR(PartitionGraph(cut, options, &partitions));

  // Every Send/Recv pair between two tasks, numbered; keyed by its rendezvous tensor name.
  std::map<std::string, std::pair<std::string, const tensorflow::NodeDef*>> recv_of_key;  // -> (task, node)
  for (const auto& [task, graph] : partitions)
    for (const tensorflow::NodeDef& node : graph.node())
      if (node.op() == "_Recv") recv_of_key[AttrString(node, "tensor_name")] = {task, &node};
  std::map<std::string, int> transfer_of_recv;  // "task|recv node" -> transfer
  std::map<std::string, int> transfer_of_send;  // "task|send node" -> transfer
  for (const auto& [task, graph] : partitions) {
    for (const tensorflow::NodeDef& node : graph.node()) {
      if (node.op() != "_Send" || node.input_size() == 0) continue;
      const auto to = recv_of_key.find(AttrString(node, "tensor_name"));
      if (to == recv_of_key.end()) continue;
      CompiledTransfer transfer;
      transfer.from_task = task;
      transfer.to_task = to->second.first;
      transfer.send_node = node.name();
      transfer.recv_node = to->second.second->name();
      transfer.bytes = OutputBytes(cut, shapes, node.input(0));
      // The partition's own constants (the dummy tensor that carries a control edge across)
      // say their size in their value.
      for (const tensorflow::NodeDef& producer : graph.node())
        if (transfer.bytes < 0 && producer.name() == InputNodeName(node.input(0)) && producer.op() == "Const" &&
            producer.attr().count("value")) {
          const tensorflow::TensorProto& value = producer.attr().at("value").tensor();
          int64_t elements = 1;
          for (const auto& dim : value.tensor_shape().dim()) elements *= dim.size();
          transfer.bytes = elements * static_cast<int64_t>(DataTypeSize(static_cast<DataType>(value.dtype())));
        }
      const Node* producer = cut.FindNode(InputNodeName(node.input(0)));
      if (producer && producer->type_string() == "_PackTensors") {
        for (const std::string& input : producer->def().input())
          if (!input.empty() && input[0] != '^') transfer.tensors.push_back(input);
      } else {
        transfer.tensors.push_back(node.input(0));
      }
      if (transfer.bytes < 0)
        return errors::InvalidArgument("the size of ", absl::StrJoin(transfer.tensors, ", "), " (sent from ", task,
                                       " to ", transfer.to_task,
                                       ") is not known from the graph's shapes: give its shape in the graph");
      const int index = static_cast<int>(step.transfers.size());
      transfer_of_send[task + "|" + node.name()] = index;
      transfer_of_recv[transfer.to_task + "|" + transfer.recv_node] = index;
      step.transfers.push_back(std::move(transfer));
    }
  }

  // Which transfers each node waits for: those its _Recv inputs bring, and everything its
  // inputs wait for, within its partition (settled until nothing changes: a partition does
  // not list its nodes in order).
  for (const auto& [task, graph] : partitions) {
    std::map<std::string, std::set<int>> waits;
    for (const tensorflow::NodeDef& node : graph.node()) {
      const auto received = transfer_of_recv.find(task + "|" + node.name());
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
      CompiledNode compiled;
      compiled.name = node.name();
      compiled.op = node.op();
      compiled.task = task;
      const std::set<int>& waited = waits[node.name()];
      compiled.waits_for.assign(waited.begin(), waited.end());
      compiled.after_receive = !waited.empty();
      if (const Node* original = placed->FindNode(node.name())) {
        for (const Edge* edge : original->in_edges()) {
          if (edge->IsControl()) continue;
          const auto it = shapes.find(edge->src->name());
          compiled.input_shapes.push_back(it != shapes.end() && static_cast<size_t>(edge->src_output) < it->second.size()
                                              ? Dims(it->second[static_cast<size_t>(edge->src_output)])
                                              : std::vector<int64_t>{-1});
        }
        const auto it = shapes.find(node.name());
        if (it != shapes.end())
          for (const PartialShape& shape : it->second) compiled.output_shapes.push_back(Dims(shape));
      }
      const auto sent = transfer_of_send.find(task + "|" + node.name());
      if (sent != transfer_of_send.end()) {
        CompiledTransfer& transfer = step.transfers[static_cast<size_t>(sent->second)];
        transfer.waits_for = compiled.waits_for;
        transfer.after_receive = compiled.after_receive;
      }
      step.nodes.push_back(std::move(compiled));
    }
  }
  return step;
}

}  // namespace clab::sim
