#include "clab/compile/CompileStep.h"

#include "clab/compile/PackTransfers.h"
#include "clab/compile/Partition.h"
#include "clab/core/DeviceName.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/Prune.h"
#include "clab/graph/ShapeContext.h"

#include <set>
#include <unordered_map>

namespace clab {
namespace {

std::string NodeOfTarget(const std::string& target) {
  return !target.empty() && target[0] == '^' ? target.substr(1) : target;
}

StatusOr<TensorId> CheckTensorInGraph(const Graph& graph, const std::string& name, std::string_view role) {
  CLAB_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(name));
  const Node* node = graph.FindNode(id.node);
  if (!node) return errors::NotFound(role, " '", name, "' is not in the graph: there is no node named '", id.node, "'");
  if (id.index < 0 || id.index >= node->num_outputs())
    return errors::NotFound(role, " '", name, "' is not in the graph: node '", id.node, "' (", node->type_string(),
                            ") has ", node->num_outputs(), " output(s)");
  return id;
}

// The signature as it will be compiled: every name in the graph, each name once, no
// tensor fed twice under two names ("x" and "x:0").
StatusOr<StepSignature> CheckSignature(const Graph& graph, const StepSignature& asked) {
  StepSignature checked;
  std::set<std::string> fed;
  for (const std::string& feed : asked.feeds) {
    CLAB_ASSIGN_OR_RETURN(TensorId id, CheckTensorInGraph(graph, feed, "Feed"));
    if (!fed.insert(id.ToString()).second) return errors::InvalidArgument("'", feed, "' is fed more than once");
    checked.feeds.push_back(feed);
  }
  std::set<std::string> seen;
  for (const std::string& fetch : asked.fetches) {
    CLAB_RETURN_IF_ERROR(CheckTensorInGraph(graph, fetch, "Fetch").status());
    if (seen.insert(fetch).second) checked.fetches.push_back(fetch);
  }
  seen.clear();
  for (const std::string& target : asked.targets) {
    const std::string node = NodeOfTarget(target);
    if (!graph.FindNode(node))
      return errors::NotFound("Target '", target, "' is not in the graph: there is no node named '", node, "'");
    if (seen.insert(target).second) checked.targets.push_back(target);
  }
  return checked;
}

// Bytes of a constant's value; -1 for strings or a value without a shape.
int64_t ConstBytes(const tensorflow::NodeDef& node) {
  const auto value = node.attr().find("value");
  if (value == node.attr().end() || !value->second.has_tensor()) return -1;
  const tensorflow::TensorProto& tensor = value->second.tensor();
  const DataType dtype = BaseType(static_cast<DataType>(tensor.dtype()));
  if (dtype == DT_STRING) return -1;
  int64_t elements = 1;
  for (const auto& dim : tensor.tensor_shape().dim()) elements *= dim.size();
  return elements * static_cast<int64_t>(DataTypeSize(dtype));
}

// Bytes of one output from the inferred shapes; a pack's output is the sum of what it
// packs, a constant the partitioner added (the empty tensor that carries a control edge to
// another partition) the size of its value. -1 when not fully known.
int64_t OutputBytes(const Graph& placed, const std::map<std::string, std::vector<PartialShape>>& shapes,
                    const std::unordered_map<std::string, const tensorflow::NodeDef*>& partition,
                    const std::string& tensor) {
  StatusOr<TensorId> id = TensorId::Parse(tensor);
  if (!id.ok()) return -1;
  if (auto pack = partition.find(id->node); pack != partition.end() && pack->second->op() == "_PackTensors") {
    int64_t total = 0;
    for (const std::string& input : pack->second->input()) {
      const int64_t bytes = OutputBytes(placed, shapes, partition, input);
      if (bytes < 0) return -1;
      total += bytes;
    }
    return total;
  }
  const Node* node = placed.FindNode(id->node);
  if (!node) {
    auto added = partition.find(id->node);
    return added != partition.end() && added->second->op() == "Const" && id->index == 0 ? ConstBytes(*added->second)
                                                                                        : -1;
  }
  if (id->index < 0 || id->index >= node->num_outputs()) return -1;
  const auto it = shapes.find(id->node);
  if (it == shapes.end() || static_cast<size_t>(id->index) >= it->second.size()) return -1;
  const PartialShape& shape = it->second[static_cast<size_t>(id->index)];
  if (!shape.IsFullyDefined()) return -1;
  const DataType dtype = BaseType(node->output_types()[static_cast<size_t>(id->index)]);
  if (dtype == DT_STRING) return -1;
  return shape.num_elements() * static_cast<int64_t>(DataTypeSize(dtype));
}

std::string StringAttr(const tensorflow::NodeDef& node, std::string_view name) {
  std::string value;
  return GetNodeAttr(node, name, &value).ok() ? value : std::string();
}

// Every _Send with the _Recv that meets it (by the edge's tensor_name).
std::vector<CompiledStep::Transfer> DescribeTransfers(const CompiledStep& step) {
  std::map<std::string, std::vector<PartialShape>> shapes;
  // Bytes stay unknown past a node whose shapes cannot be inferred. The graph may be a
  // client's: no shape function reads a file it names.
  {
    ShapeContext::FilesOff no_files;
    InferGraphShapes(*step.placed, &shapes).IgnoreError();
  }
  std::unordered_map<std::string, std::pair<int, const tensorflow::NodeDef*>> recvs;
  for (size_t p = 0; p < step.partitions.size(); ++p)
    for (const tensorflow::NodeDef& node : step.partitions[p].graph.node())
      if (node.op() == "_Recv") recvs[StringAttr(node, "tensor_name")] = {static_cast<int>(p), &node};

  std::vector<CompiledStep::Transfer> transfers;
  for (size_t p = 0; p < step.partitions.size(); ++p) {
    const tensorflow::GraphDef& graph = step.partitions[p].graph;
    std::unordered_map<std::string, const tensorflow::NodeDef*> nodes;
    for (const tensorflow::NodeDef& node : graph.node()) nodes[node.name()] = &node;
    for (const tensorflow::NodeDef& node : graph.node()) {
      if (node.op() != "_Send" || node.input_size() == 0) continue;
      CompiledStep::Transfer transfer;
      // Named as "node:index", whether the graph wrote the input as "node" or "node:0".
      auto sent = TensorId::Parse(node.input(0));
      transfer.tensor = sent.ok() ? sent->ToString() : node.input(0);
      transfer.send_node = node.name();
      transfer.from = static_cast<int>(p);
      transfer.send_device = StringAttr(node, "send_device");
      transfer.recv_device = StringAttr(node, "recv_device");
      if (auto producer = nodes.find(InputNodeName(transfer.tensor));
          producer != nodes.end() && producer->second->op() == "_PackTensors")
        for (const std::string& input : producer->second->input()) {
          auto packed = TensorId::Parse(input);
          transfer.packed.push_back(packed.ok() ? packed->ToString() : input);
        }
      transfer.bytes = OutputBytes(*step.placed, shapes, nodes, transfer.tensor);
      if (auto recv = recvs.find(StringAttr(node, "tensor_name")); recv != recvs.end()) {
        transfer.to = recv->second.first;
        transfer.recv_node = recv->second.second->name();
      }
      transfers.push_back(std::move(transfer));
    }
  }
  return transfers;
}

}  // namespace

StatusOr<std::unique_ptr<CompiledStep>> CompileStep(const tensorflow::GraphDef& graph_def, const Graph& graph,
                                                    const StepSignature& signature, const CompileOptions& options) {
  auto step = std::make_unique<CompiledStep>();
  CLAB_ASSIGN_OR_RETURN(step->signature, CheckSignature(graph, signature));

  // Prune to what the step needs.
  std::vector<std::string> target_nodes;
  for (const std::string& target : step->signature.targets) target_nodes.push_back(NodeOfTarget(target));
  tensorflow::GraphDef pruned;
  CLAB_RETURN_IF_ERROR(PruneGraph(graph_def, step->signature.feeds, step->signature.fetches, target_nodes, &pruned));

  // Place, keeping stateful nodes where earlier steps of the session put them.
  if (options.stateful_placement != nullptr) {
    for (tensorflow::NodeDef& node : *pruned.mutable_node()) {
      auto placed = options.stateful_placement->find(node.name());
      if (placed != options.stateful_placement->end()) node.set_device(placed->second);
    }
  }
  CLAB_ASSIGN_OR_RETURN(step->placed, Graph::FromGraphDef(pruned));
  CLAB_RETURN_IF_ERROR(PlaceGraph(step->placed.get(), options.devices, options.placer));
  if (options.stateful_placement != nullptr) {
    for (const Node* node : step->placed->nodes())
      if (node->op_def().is_stateful) (*options.stateful_placement)[node->name()] = node->assigned_device();
  }

  // Pack what crosses tasks, then cut.
  PartitionOptions partition_options;
  std::unique_ptr<Graph> packed;
  if (options.partition_by == PartitionBy::kTask) {
    auto task_of_device = std::make_shared<std::unordered_map<std::string, std::string>>();
    for (const AvailableDevice& device : options.devices)
      (*task_of_device)[device.name] = DeviceName::TaskOf(device.name);
    partition_options.partition_of = [task_of_device](const std::string& device) {
      auto it = task_of_device->find(device);
      return it != task_of_device->end() ? it->second : DeviceName::TaskOf(device);
    };
    // One message per pair of devices on different tasks rather than one per tensor.
    CLAB_ASSIGN_OR_RETURN(packed, PackCrossTaskTransfers(*step->placed, partition_options.partition_of));
  } else {
    partition_options.partition_of = [](const std::string& device) { return device; };
  }
  partition_options.incarnation_of = [&options](const std::string& device) {
    return options.incarnation_of ? options.incarnation_of(device) : uint64_t{0};
  };
  std::map<std::string, tensorflow::GraphDef> partition_graphs;
  CLAB_RETURN_IF_ERROR(PartitionGraph(packed ? *packed : *step->placed, partition_options, &partition_graphs));
  for (auto& [name, partition_graph] : partition_graphs) {
    // Kernels that call the library's functions find them in their partition.
    if (pruned.library().function_size() > 0) *partition_graph.mutable_library() = pruned.library();
    step->partitions.push_back({name, std::move(partition_graph)});
  }

  std::vector<const tensorflow::GraphDef*> graphs;
  for (const CompiledStep::Partition& partition : step->partitions) graphs.push_back(&partition.graph);
  CLAB_ASSIGN_OR_RETURN(step->routes, RouteStep(step->signature, graphs));
  if (options.describe_transfers) step->transfers = DescribeTransfers(*step);
  return step;
}

StatusOr<std::unique_ptr<CompiledStep>> CompileStep(const tensorflow::GraphDef& graph_def,
                                                    const StepSignature& signature, const CompileOptions& options) {
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, Graph::FromGraphDef(graph_def));
  return CompileStep(graph_def, *graph, signature, options);
}

}  // namespace clab
