#include "clab/graph/Graph.h"

#include "clab/graph/AttrValues.h"
#include "clab/graph/ForeignOpDefs.h"
#include "clab/graph/ShapeContext.h"

#include <absl/strings/str_join.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <queue>
#include <set>

namespace clab {
namespace {

// TensorFlow's node-name rule: [A-Za-z0-9.][A-Za-z0-9_./>-]*. Names outside it cannot be
// written as inputs ("a:0") unambiguously, and TensorFlow's own tools refuse them.
bool IsValidNodeName(std::string_view name) {
  auto first_ok = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.'; };
  auto rest_ok = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' || c == '-' || c == '>';
  };
  return !name.empty() && first_ok(name[0]) && std::all_of(name.begin() + 1, name.end(), rest_ok);
}

bool IsControlInput(std::string_view input) { return !input.empty() && input[0] == '^'; }

// A value of type `produced` may feed an input declared `expected`: equal types, or a
// reference feeding a plain input (it is read, as TensorFlow dereferences automatically).
bool TypesCompatible(DataType produced, DataType expected) {
  if (produced == expected) return true;
  if (produced == DT_INVALID || expected == DT_INVALID) return true;  // a foreign op's unknown type
  return IsRefType(produced) && !IsRefType(expected) && BaseType(produced) == expected;
}

Status CheckUnregisteredOps(const tensorflow::GraphDef& graph, const OpRegistry& registry) {
  std::map<std::string, std::vector<std::string>> users;  // op -> nodes, sorted by op
  for (const auto& node : graph.node())
    if (registry.Find(node.op()) == nullptr) users[node.op()].push_back("'" + node.name() + "'");
  if (users.empty()) return OkStatus();
  // Every missing op at once: fixing them one run at a time is tedious.
  std::vector<std::string> parts;
  for (const auto& [op, nodes] : users)
    parts.push_back(
        StrCat("'", op, "' (used by ", nodes.size() == 1 ? "node " : "nodes ", absl::StrJoin(nodes, ", "), ")"));
  return errors::NotFound(
      users.size() == 1 ? "Op type not registered " : "Op types not registered: ", absl::StrJoin(parts, ", "),
      ". ClusterLab supports a subset of TensorFlow's ops; `clab ops` lists them.");
}

// Names a cycle among `remaining` (nodes Kahn's algorithm could not order) by walking
// input edges until a node repeats: "a -> b -> a" reads in data-flow order.
std::string DescribeCycle(const std::vector<Node*>& remaining) {
  std::set<const Node*> pending(remaining.begin(), remaining.end());
  std::vector<const Node*> path;
  std::map<const Node*, size_t> position;
  const Node* current = remaining.front();
  while (current != nullptr && !position.count(current)) {
    position[current] = path.size();
    path.push_back(current);
    const Node* next = nullptr;
    for (const Edge* edge : current->in_edges())
      if (pending.count(edge->src)) {
        next = edge->src;
        break;
      }
    current = next;
  }
  if (current == nullptr) return "'" + remaining.front()->name() + "'";
  std::vector<const Node*> cycle(path.begin() + static_cast<std::ptrdiff_t>(position[current]), path.end());
  std::reverse(cycle.begin(), cycle.end());
  // Start at the node listed first in the GraphDef, so the message does not depend on
  // where the walk happened to begin.
  std::rotate(
      cycle.begin(),
      std::min_element(cycle.begin(), cycle.end(), [](const Node* a, const Node* b) { return a->id() < b->id(); }),
      cycle.end());
  std::vector<std::string> names;
  for (const Node* node : cycle) names.push_back(node->name());
  names.push_back(names.front());
  return absl::StrJoin(names, " -> ");
}

}  // namespace

const Edge* Node::input_edge(int i) const {
  for (const Edge* edge : in_edges_)
    if (edge->dst_input == i) return edge;
  return nullptr;
}

std::string InputNodeName(std::string_view input) {
  if (!input.empty() && input[0] == '^') input.remove_prefix(1);
  const size_t colon = input.rfind(':');
  return std::string(colon == std::string_view::npos ? input : input.substr(0, colon));
}

StatusOr<TensorId> TensorId::Parse(std::string_view name) {
  TensorId id;
  if (IsControlInput(name)) {
    id.node = std::string(name.substr(1));
    id.index = Edge::kControlSlot;
    if (id.node.empty()) return errors::InvalidArgument("Malformed control input '", name, "': no node name");
    return id;
  }
  size_t colon = name.rfind(':');
  if (colon == std::string_view::npos) {
    id.node = std::string(name);
  } else {
    std::string_view digits = name.substr(colon + 1);
    int index = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || index < 0)
      return errors::InvalidArgument("Malformed tensor name '", name, "': expected 'node' or 'node:<output index>'");
    id.node = std::string(name.substr(0, colon));
    id.index = index;
  }
  if (id.node.empty()) return errors::InvalidArgument("Malformed tensor name '", name, "': no node name");
  return id;
}

std::string TensorId::ToString() const {
  if (index == Edge::kControlSlot) return "^" + node;
  return StrCat(node, ":", index);
}

namespace {

// How many outputs each node's consumers name (at least one per node).
std::map<std::string, int> ReferencedOutputs(const tensorflow::GraphDef& graph_def) {
  std::map<std::string, int> counts;
  for (const auto& node : graph_def.node())
    for (const std::string& input : node.input()) {
      auto id = TensorId::Parse(input);
      if (id.ok() && id->index >= 0) counts[id->node] = std::max(counts[id->node], id->index + 1);
    }
  return counts;
}

bool IsLoopBackEdge(const Edge* edge) {
  const std::string& op = edge->src->type_string();
  return op == "NextIteration" || op == "RefNextIteration";
}

}  // namespace

Graph::Graph() = default;
Graph::~Graph() = default;

StatusOr<std::unique_ptr<Graph>> Graph::FromGraphDef(const tensorflow::GraphDef& graph_def,
                                                     const OpRegistry& registry) {
  CLAB_RETURN_IF_ERROR(CheckUnregisteredOps(graph_def, registry));
  return Build(graph_def, registry, nullptr);
}

StatusOr<std::unique_ptr<Graph>> Graph::FromForeignGraphDef(const tensorflow::GraphDef& graph_def,
                                                            const std::vector<tensorflow::OpDefProto>& declared,
                                                            const OpRegistry& registry) {
  auto foreign = std::make_unique<ForeignOpDefs>();
  for (const auto& op : declared)
    if (registry.Find(op.name()) == nullptr) CLAB_RETURN_IF_ERROR(foreign->Declare(op));
  return Build(graph_def, registry, std::move(foreign));
}

std::map<std::string, std::vector<std::string>> Graph::ForeignOps() const {
  std::map<std::string, std::vector<std::string>> ops;
  for (const Node* node : node_ptrs_)
    if (foreign_nodes_.count(node)) ops[node->type_string()].push_back(node->name());
  return ops;
}

StatusOr<std::unique_ptr<Graph>> Graph::Build(const tensorflow::GraphDef& graph_def, const OpRegistry& registry,
                                              std::unique_ptr<ForeignOpDefs> foreign) {
  auto graph = std::make_unique<Graph>();
  graph->versions_ = graph_def.versions();
  const std::map<std::string, int> referenced = foreign ? ReferencedOutputs(graph_def) : std::map<std::string, int>();

  for (int i = 0; i < graph_def.node_size(); ++i) {
    const auto& def = graph_def.node(i);
    if (!IsValidNodeName(def.name()))
      return errors::InvalidArgument("Node name '", def.name(), "' (node ", i,
                                     " of the GraphDef) is not valid: names match [A-Za-z0-9.][A-Za-z0-9_./>-]*");
    auto node = std::make_unique<Node>();
    node->id_ = i;
    node->def_ = def;
    if (!graph->by_name_.emplace(def.name(), node.get()).second)
      return errors::InvalidArgument("Node '", def.name(), "' is defined twice in the GraphDef (nodes ",
                                     graph->by_name_.at(def.name())->id_, " and ", i, ")");
    node->op_ = registry.Find(def.op());
    if (node->op_ == nullptr && foreign) {
      graph->foreign_nodes_.insert(node.get());
      node->op_ = foreign->FindDeclared(def.op());
      if (node->op_ == nullptr) {
        auto count = referenced.find(def.name());
        node->op_ = foreign->InferFromNode(def, count == referenced.end() ? 1 : count->second, &node->input_types_,
                                           &node->output_types_);
        graph->node_ptrs_.push_back(node.get());
        graph->nodes_.push_back(std::move(node));
        continue;
      }
    }
    CLAB_RETURN_IF_ERROR(AddDefaultsAndValidate(*node->op_, &node->def_));
    CLAB_RETURN_IF_ERROR(InOutTypesForNode(node->def_, *node->op_, &node->input_types_, &node->output_types_));
    graph->node_ptrs_.push_back(node.get());
    graph->nodes_.push_back(std::move(node));
  }

  for (Node* dst : graph->node_ptrs_) {
    int data_slot = 0;
    for (const std::string& input : dst->def_.input()) {
      auto parsed = TensorId::Parse(input);
      if (!parsed.ok()) return errors::InvalidArgument("Node '", dst->name(), "': ", parsed.status().message());
      auto src_it = graph->by_name_.find(parsed->node);
      if (src_it == graph->by_name_.end())
        return errors::InvalidArgument("Node '", dst->name(), "': Unknown input node '", input, "'");
      Node* src = src_it->second;

      auto edge = std::make_unique<Edge>();
      edge->src = src;
      edge->dst = dst;
      if (parsed->index == Edge::kControlSlot) {
        edge->src_output = edge->dst_input = Edge::kControlSlot;
      } else {
        if (parsed->index >= src->num_outputs())
          return errors::InvalidArgument("Node '", dst->name(), "': Connecting to invalid output ", parsed->index,
                                         " of source node ", src->name(), " which has ", src->num_outputs(),
                                         " outputs");
        const DataType produced = src->output_types_[static_cast<size_t>(parsed->index)];
        const DataType expected = dst->input_types_[static_cast<size_t>(data_slot)];
        if (!TypesCompatible(produced, expected))
          return errors::InvalidArgument("Input ", data_slot, " of node ", dst->name(), " was passed ",
                                         DataTypeName(produced), " from ", input, " incompatible with expected ",
                                         DataTypeName(expected), ".");
        edge->src_output = parsed->index;
        edge->dst_input = data_slot++;
      }
      dst->in_edges_.push_back(edge.get());
      src->out_edges_.push_back(edge.get());
      graph->edges_.push_back(std::move(edge));
    }
  }

  graph->foreign_ = std::move(foreign);
  // A graph that cannot be ordered cannot be run; loops close only through NextIteration.
  const std::vector<Node*> order = graph->TopologicalOrder();
  if (order.size() != graph->node_ptrs_.size()) {
    std::set<Node*> ordered(order.begin(), order.end());
    std::vector<Node*> remaining;
    for (Node* node : graph->node_ptrs_)
      if (!ordered.count(node)) remaining.push_back(node);
    return errors::InvalidArgument("Graph contains a cycle: ", DescribeCycle(remaining), " (", remaining.size(),
                                   " node(s) cannot be ordered)");
  }
  return graph;
}

tensorflow::GraphDef Graph::ToGraphDef(bool with_assigned_devices) const {
  tensorflow::GraphDef out;
  // An empty VersionDef stays absent, so a GraphDef without one round-trips unchanged.
  if (versions_.ByteSizeLong() > 0) *out.mutable_versions() = versions_;
  for (const Node* node : node_ptrs_) {
    tensorflow::NodeDef* def = out.add_node();
    *def = node->def_;
    if (with_assigned_devices && !node->assigned_device_.empty()) def->set_device(node->assigned_device_);
  }
  return out;
}

Node* Graph::FindNode(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<Node*> Graph::TopologicalOrder() const {
  // Ready nodes leave in id order, so a GraphDef already in order comes back unchanged and
  // every run orders the same graph the same way.
  std::vector<int> waiting(node_ptrs_.size(), 0);
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (const Node* node : node_ptrs_) {
    int count = 0;
    for (const Edge* edge : node->in_edges_) count += IsLoopBackEdge(edge) ? 0 : 1;
    waiting[static_cast<size_t>(node->id_)] = count;
    if (count == 0) ready.push(node->id_);
  }
  std::vector<Node*> order;
  order.reserve(node_ptrs_.size());
  while (!ready.empty()) {
    Node* node = node_ptrs_[static_cast<size_t>(ready.top())];
    ready.pop();
    order.push_back(node);
    for (const Edge* edge : node->out_edges_)
      if (!IsLoopBackEdge(edge) && --waiting[static_cast<size_t>(edge->dst->id_)] == 0) ready.push(edge->dst->id_);
  }
  return order;
}

Status InferNodeShapes(const tensorflow::NodeDef& node, const OpDef& op, const std::vector<DataType>& input_types,
                       const std::vector<PartialShape>& input_shapes, const std::vector<const Tensor*>& input_constants,
                       std::vector<PartialShape>* output_shapes) {
  std::vector<DataType> declared_inputs, outputs;
  CLAB_RETURN_IF_ERROR(InOutTypesForNode(node, op, &declared_inputs, &outputs));
  output_shapes->assign(outputs.size(), PartialShape::Unknown());
  if (!op.shape_fn) return OkStatus();

  // Callers may know fewer shapes or constants than there are inputs: the rest are unknown.
  const size_t n = declared_inputs.size();
  std::vector<DataType> types = input_types;
  types.resize(n, DT_INVALID);
  for (size_t i = 0; i < n; ++i)
    if (types[i] == DT_INVALID) types[i] = declared_inputs[i];
  std::vector<PartialShape> shapes = input_shapes;
  shapes.resize(n, PartialShape::Unknown());
  std::vector<const Tensor*> constants = input_constants;
  constants.resize(n, nullptr);

  ShapeContext context(node, std::move(types), std::move(shapes), std::move(constants),
                       static_cast<int>(outputs.size()));
  CLAB_RETURN_IF_ERROR(op.shape_fn(context));
  *output_shapes = context.outputs();
  return OkStatus();
}

Status InferGraphShapes(const Graph& graph, std::map<std::string, std::vector<PartialShape>>* shapes,
                        std::vector<std::string>* problems) {
  shapes->clear();
  // Const values are parsed once: several consumers (Reshape, Fill) may read the same one.
  std::map<const Node*, Tensor> constants;
  for (Node* node : graph.TopologicalOrder()) {
    std::vector<PartialShape> input_shapes(static_cast<size_t>(node->num_inputs()));
    std::vector<const Tensor*> input_constants(static_cast<size_t>(node->num_inputs()), nullptr);
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Edge* edge = node->input_edge(i);
      if (edge == nullptr) continue;
      const auto& produced = (*shapes)[edge->src->name()];
      if (static_cast<size_t>(edge->src_output) < produced.size())
        input_shapes[static_cast<size_t>(i)] = produced[static_cast<size_t>(edge->src_output)];
      auto constant = constants.find(edge->src);
      if (constant != constants.end()) input_constants[static_cast<size_t>(i)] = &constant->second;
    }
    std::vector<PartialShape> outputs;
    Status inferred =
        InferNodeShapes(node->def(), node->op_def(), node->input_types(), input_shapes, input_constants, &outputs);
    if (!inferred.ok()) {
      if (problems == nullptr) return inferred;
      problems->push_back(StrCat(node->name(), ": ", inferred.message()));
      outputs.clear();
    }
    outputs.resize(static_cast<size_t>(node->num_outputs()), PartialShape::Unknown());
    (*shapes)[node->name()] = std::move(outputs);
    if (node->type_string() == "Const") {
      Tensor value;
      if (GetNodeAttr(node->def(), "value", &value).ok()) constants.emplace(node, std::move(value));
    }
  }
  return OkStatus();
}

}  // namespace clab
