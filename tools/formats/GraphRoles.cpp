#include "formats/GraphRoles.h"

#include "formats/InputPipelines.h"

#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <tuple>

namespace clab::tools {
namespace {

bool IsUpdateOp(const std::string& op) {
  return absl::StartsWith(op, "Apply") || absl::StartsWith(op, "ResourceApply") ||
         absl::StartsWith(op, "SparseApply") || absl::StartsWith(op, "ResourceSparseApply");
}

// Node name -> its inputs' node names (data and control).
std::map<std::string, std::vector<std::string>> InputsByNode(const tensorflow::GraphDef& graph) {
  std::map<std::string, std::vector<std::string>> inputs;
  for (const auto& node : graph.node()) {
    auto& list = inputs[node.name()];
    for (const std::string& input : node.input()) list.push_back(InputNodeName(input));
  }
  return inputs;
}

// Every node `roots` depend on, themselves included.
std::set<std::string> Ancestors(const std::map<std::string, std::vector<std::string>>& inputs,
                                const std::vector<std::string>& roots) {
  std::set<std::string> seen;
  std::vector<std::string> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    std::string name = std::move(stack.back());
    stack.pop_back();
    if (!seen.insert(name).second) continue;
    auto it = inputs.find(name);
    if (it != inputs.end())
      for (const std::string& input : it->second)
        if (!seen.count(input)) stack.push_back(input);
  }
  return seen;
}

std::vector<std::string> CollectionNodes(const tensorflow::MetaGraphDef& meta, const std::string& key) {
  std::vector<std::string> names;
  auto it = meta.collection_def().find(key);
  if (it == meta.collection_def().end()) return names;
  for (const std::string& value : it->second.node_list().value()) names.push_back(InputNodeName(value));
  return names;
}

bool IsInitialiserName(const std::string& name) {
  return name == "init" || name == "init_all_tables" || name == "init_all_vars_op" ||
         (absl::StartsWith(name, "init_") && name.find_first_not_of("0123456789", 5) == std::string::npos);
}

}  // namespace

StatusOr<std::vector<std::string>> GraphRoles::InitOps(std::string* found_by) const {
  const tensorflow::GraphDef& graph = meta_.graph_def();
  std::set<std::string> present;
  for (const auto& node : graph.node()) present.insert(node.name());

  // The initializers the variables collection names: what tf.global_variables_initializer
  // groups. A graph whose own init op leaves variables out (a SavedModel's, which restores
  // them instead) gets them added.
  std::vector<std::string> variable_initializers;
  auto variables = meta_.collection_def().find("variables");
  if (variables != meta_.collection_def().end())
    for (const std::string& bytes : variables->second.bytes_list().value()) {
      tensorflow::VariableDefProto def;
      if (def.ParseFromString(bytes) && present.count(InputNodeName(def.initializer_name())))
        variable_initializers.push_back(InputNodeName(def.initializer_name()));
    }
  auto with_variables = [&](std::vector<std::string> ops) {
    const std::set<std::string> covered = Ancestors(InputsByNode(graph), ops);
    for (const std::string& init : variable_initializers)
      if (!covered.count(init)) ops.push_back(init);
    return ops;
  };

  std::vector<std::string> ops;
  // A SavedModel's loader runs its main op ("saved_model_main_op", or "legacy_init_op" from
  // TF before 1.6) after restoring the variables; here their initializers stand in for the
  // restore.
  std::vector<std::string> keys;
  for (const char* key : {"init_op", "local_init_op", "table_initializer", "saved_model_main_op", "legacy_init_op"})
    for (const std::string& name : CollectionNodes(meta_, key))
      if (present.count(name)) {
        ops.push_back(name);
        if (keys.empty() || keys.back() != key) keys.push_back(key);
      }
  if (!ops.empty()) {
    *found_by = "the " + absl::StrJoin(keys, ", ") + (keys.size() > 1 ? " collections" : " collection");
    return with_variables(ops);
  }
  for (const auto& node : graph.node())
    if (IsInitialiserName(node.name()) && node.op() == "NoOp") ops.push_back(node.name());
  if (!ops.empty()) {
    *found_by = "their conventional names";
    return with_variables(ops);
  }
  if (!variable_initializers.empty()) {
    *found_by = "the variables collection's initializers";
    return variable_initializers;
  }
  std::set<std::string> variables_v2;
  for (const auto& node : graph.node())
    if (node.op() == "VariableV2" || node.op() == "Variable" || node.op() == "VarHandleOp")
      variables_v2.insert(node.name());
  for (const auto& node : graph.node())
    if ((node.op() == "Assign" || node.op() == "AssignVariableOp") && node.input_size() > 0 &&
        variables_v2.count(InputNodeName(node.input(0))) && node.name() == InputNodeName(node.input(0)) + "/Assign")
      ops.push_back(node.name());
  if (!ops.empty()) {
    *found_by = "the variables' own Assign nodes";
    return ops;
  }
  if (variables_v2.empty()) {
    *found_by = "nothing: the graph holds no variables";
    return ops;
  }
  return errors::NotFound(
      "no init op found: no init_op collection, no node named 'init' and no '<variable>/Assign' "
      "nodes; name it with --init NODE");
}

StatusOr<std::vector<std::string>> GraphRoles::StepTargets(std::string* found_by) const {
  const tensorflow::GraphDef& graph = meta_.graph_def();
  std::set<std::string> present;
  for (const auto& node : graph.node()) present.insert(node.name());
  std::vector<std::string> from_collection;
  for (const std::string& name : CollectionNodes(meta_, "train_op"))
    if (present.count(name)) from_collection.push_back(name);
  if (!from_collection.empty()) {
    *found_by = "the train_op collection";
    return from_collection;
  }

  const auto inputs = InputsByNode(graph);
  std::set<std::string> consumed;
  for (const auto& [name, list] : inputs) consumed.insert(list.begin(), list.end());
  std::set<std::string> updates;
  for (const auto& node : graph.node())
    if (IsUpdateOp(node.op())) updates.insert(node.name());

  std::vector<std::string> outputs;
  std::string best;
  size_t best_count = 0;
  for (const auto& node : graph.node()) {
    if (consumed.count(node.name()) || absl::StartsWith(node.name(), "save/") || IsInitialiserName(node.name()))
      continue;
    if (node.op() == "Assign" || node.op() == "NoOp" || node.op() == "Const") {
      if (updates.empty()) continue;  // an initializer or a constant, not an output
    }
    if (updates.empty()) {
      outputs.push_back(node.name());
      continue;
    }
    size_t count = 0;
    for (const std::string& ancestor : Ancestors(inputs, {node.name()})) count += updates.count(ancestor);
    if (count > best_count) {  // the first in GraphDef order wins ties
      best_count = count;
      best = node.name();
    }
  }
  if (!best.empty()) {
    *found_by = absl::StrCat("the node reaching the most optimizer updates (", best_count, " of ", updates.size(), ")");
    return std::vector<std::string>{best};
  }
  if (!outputs.empty()) {
    *found_by = "the graph's outputs (it has no optimizer updates)";
    return outputs;
  }
  return errors::NotFound("no training op or output found; name one with --target NODE");
}

namespace {

bool IsPipelineEnd(const std::string& op) {
  return absl::StartsWith(op, "QueueDequeue") || op == "IteratorGetNext" || op == "IteratorGetNextSync" ||
         op == "ReaderReadV2" || op == "ReaderRead" || op == "ReaderReadUpToV2" || op == "ReaderReadUpTo";
}

bool IsGetNext(const std::string& op) { return op == "IteratorGetNext" || op == "IteratorGetNextSync"; }

std::vector<PartialShape> ShapesAttr(const tensorflow::NodeDef& node, const char* name) {
  std::vector<PartialShape> shapes;
  auto it = node.attr().find(name);
  if (it == node.attr().end()) return shapes;
  for (const auto& shape : it->second.list().shape()) shapes.push_back(PartialShape::FromProto(shape));
  return shapes;
}

// A shape for a placeholder that declares none, from how its consumers use it: the rows of a
// MatMul's other operand, or the shape of the other operand of an element-wise op or a loss.
PartialShape ShapeFromConsumers(const tensorflow::MetaGraphDef& meta, const std::string& placeholder) {
  const auto& declared = meta.meta_info_def().stripped_op_list().op();
  auto graph = Graph::FromForeignGraphDef(meta.graph_def(),
                                          std::vector<tensorflow::OpDefProto>(declared.begin(), declared.end()));
  if (!graph.ok()) return PartialShape::Unknown();
  std::map<std::string, std::vector<PartialShape>> shapes;
  std::vector<std::string> problems;
  InferGraphShapes(**graph, &shapes, &problems).IgnoreError();
  auto shape_of = [&](const Edge* edge) {
    auto found = shapes.find(edge->src->name());
    return found == shapes.end() || static_cast<size_t>(edge->src_output) >= found->second.size()
               ? PartialShape::Unknown()
               : found->second[static_cast<size_t>(edge->src_output)];
  };
  static const std::set<std::string> kElementwise = {"Add",     "AddV2",    "Sub",
                                                     "Mul",     "RealDiv",  "SquaredDifference",
                                                     "Equal",   "NotEqual", "SoftmaxCrossEntropyWithLogits",
                                                     "Maximum", "Minimum"};
  const Node* node = (*graph)->FindNode(placeholder);
  if (node == nullptr) return PartialShape::Unknown();
  for (const Edge* out : node->out_edges()) {
    if (out->IsControl()) continue;
    const Node* consumer = out->dst;
    const Edge* other = consumer->input_edge(1 - std::min(out->dst_input, 1));
    if (other == nullptr || out->dst_input > 1) continue;
    const PartialShape other_shape = shape_of(other);
    if (!other_shape.known_rank()) continue;
    if (consumer->type_string() == "MatMul" && out->dst_input == 0 && other_shape.rank() == 2) {
      bool transpose_b = false;
      GetNodeAttr(consumer->def(), "transpose_b", &transpose_b).IgnoreError();
      return PartialShape({-1, other_shape.dim(transpose_b ? 1 : 0)});
    }
    if (kElementwise.count(consumer->type_string())) return other_shape;
  }
  return PartialShape::Unknown();
}

}  // namespace

std::vector<GraphRoles::FeedPoint> GraphRoles::FeedPointsFor(const std::vector<std::string>& targets) const {
  const tensorflow::GraphDef& graph = meta_.graph_def();
  std::map<std::string, const tensorflow::NodeDef*> by_name;
  for (const auto& node : graph.node()) by_name[node.name()] = &node;
  std::vector<FeedPoint> points;
  std::set<std::string> seen;
  const InputPipelines pipelines(graph);
  std::vector<std::string> stack(targets.begin(), targets.end());
  while (!stack.empty()) {
    const std::string name = stack.back();
    stack.pop_back();
    auto found = by_name.find(name);
    if (found == by_name.end() || !seen.insert(name).second) continue;
    const tensorflow::NodeDef& node = *found->second;
    if (IsGetNext(node.op()) && pipelines.Runs(name)) continue;
    if (node.op() == "Placeholder") {
      FeedPoint point{name, 0, DT_FLOAT, PartialShape::Unknown(), true};
      GetNodeAttr(node, "dtype", &point.dtype).IgnoreError();
      if (node.attr().count("shape")) GetNodeAttr(node, "shape", &point.shape).IgnoreError();
      // Graphs of producer version 21 and before (TensorFlow up to 1.1) wrote an unknown
      // placeholder shape as the empty shape: there a scalar shape means unknown, as
      // TensorFlow's own Placeholder shape function reads it.
      if (graph.versions().producer() <= 21 && point.shape.known_rank() && point.shape.rank() == 0)
        point.shape = PartialShape::Unknown();
      // The shape the writing TensorFlow inferred, when it saved one (_output_shapes), else
      // one the consumers imply.
      if (!point.shape.known_rank()) {
        const std::vector<PartialShape> written = ShapesAttr(node, "_output_shapes");
        if (written.size() == 1) point.shape = written[0];
      }
      if (!point.shape.known_rank()) point.shape = ShapeFromConsumers(meta_, name);
      points.push_back(point);
      continue;
    }
    if (IsPipelineEnd(node.op())) {
      std::vector<DataType> types;
      for (const char* attr : {"component_types", "output_types"})
        if (types.empty()) GetNodeAttr(node, attr, &types).IgnoreError();
      if (node.op().rfind("Reader", 0) == 0) types = {DT_STRING, DT_STRING};
      std::vector<PartialShape> shapes = ShapesAttr(node, "_output_shapes");
      if (shapes.size() != types.size()) shapes = ShapesAttr(node, "output_shapes");
      if (shapes.size() != types.size() && node.input_size() > 0) {
        // A dequeue's components have its queue's shapes, after the batch for *Many/UpTo.
        auto queue = by_name.find(InputNodeName(node.input(0)));
        if (queue != by_name.end()) shapes = ShapesAttr(*queue->second, "shapes");
        const bool batched = absl::StrContains(node.op(), "Many") || absl::StrContains(node.op(), "UpTo");
        if (batched)
          for (PartialShape& shape : shapes) {
            std::vector<int64_t> dims = {-1};
            if (shape.known_rank()) dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
            shape = shape.known_rank() ? PartialShape(dims) : PartialShape::Unknown();
          }
      }
      for (size_t i = 0; i < types.size(); ++i)
        points.push_back(
            {name, static_cast<int>(i), types[i], i < shapes.size() ? shapes[i] : PartialShape::Unknown(), false});
      continue;
    }
    for (const std::string& input : node.input()) stack.push_back(InputNodeName(input));
  }
  std::sort(points.begin(), points.end(), [](const FeedPoint& a, const FeedPoint& b) {
    return std::tie(a.node, a.output) < std::tie(b.node, b.output);
  });
  return points;
}

std::vector<std::string> GraphRoles::PipelineInitializers(const std::vector<std::string>& targets) const {
  const tensorflow::GraphDef& graph = meta_.graph_def();
  std::map<std::string, const tensorflow::NodeDef*> by_name;
  for (const auto& node : graph.node()) by_name[node.name()] = &node;
  const InputPipelines pipelines(graph);
  std::vector<std::string> initializers;
  std::set<std::string> seen;
  std::vector<std::string> stack(targets.begin(), targets.end());
  while (!stack.empty()) {
    const std::string name = stack.back();
    stack.pop_back();
    auto found = by_name.find(name);
    if (found == by_name.end() || !seen.insert(name).second) continue;
    const tensorflow::NodeDef& node = *found->second;
    if (IsPipelineEnd(node.op())) {
      if (IsGetNext(node.op()) && pipelines.Runs(name))
        for (const std::string& maker : pipelines.Initializers(name))
          if (std::find(initializers.begin(), initializers.end(), maker) == initializers.end())
            initializers.push_back(maker);
      continue;
    }
    for (const std::string& input : node.input()) stack.push_back(InputNodeName(input));
  }
  return initializers;
}

void GraphRoles::CutPipelines(std::vector<FeedPoint>* points, tensorflow::GraphDef* graph) {
  std::set<std::string> consumed;  // "node:i" some node reads
  for (const auto& node : graph->node())
    for (const std::string& input : node.input()) {
      auto id = TensorId::Parse(input);
      if (id.ok() && id->index >= 0) consumed.insert(absl::StrCat(id->node, ":", id->index));
    }
  std::map<std::string, std::string> replacement;  // "node:i" (and "node" for 0) -> placeholder
  std::vector<FeedPoint> kept;
  for (FeedPoint point : *points) {
    if (!point.is_placeholder) {
      const std::string tensor = absl::StrCat(point.node, ":", point.output);
      if (!consumed.count(tensor)) continue;  // an output nothing reads needs no value
      const std::string name = absl::StrCat(point.node, "/fed_", point.output);
      tensorflow::NodeDef* placeholder = graph->add_node();
      placeholder->set_name(name);
      placeholder->set_op("Placeholder");
      (*placeholder->mutable_attr())["dtype"] = AttrOf(point.dtype);
      (*placeholder->mutable_attr())["shape"] = AttrOf(point.shape);
      replacement[tensor] = name;
      if (point.output == 0) replacement[point.node] = name;
      point.node = name;
      point.output = 0;
      point.is_placeholder = true;
    }
    kept.push_back(point);
  }
  *points = std::move(kept);
  for (auto& node : *graph->mutable_node())
    for (std::string& input : *node.mutable_input()) {
      auto it = replacement.find(input);
      if (it != replacement.end()) input = it->second;
    }
}

StatusOr<Tensor> GraphRoles::RandomFeed(const FeedPoint& point, int64_t batch, uint32_t seed) {
  const DataType dtype = point.dtype;
  if (dtype != DT_FLOAT && dtype != DT_DOUBLE && dtype != DT_INT32 && dtype != DT_INT64 && dtype != DT_BOOL &&
      dtype != DT_STRING && dtype != DT_UINT8)
    return errors::Unimplemented("cannot generate a ", DataTypeName(dtype), " value for '", point.node, "'");
  std::vector<int64_t> dims;
  if (point.shape.known_rank())
    for (int64_t dim : point.shape.dims()) dims.push_back(dim < 0 ? batch : dim);
  Tensor value(dtype, TensorShape(dims));
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int64_t i = 0; i < value.NumElements(); ++i) {
    if (dtype == DT_FLOAT) value.data<float>()[i] = static_cast<float>(uniform(random));
    if (dtype == DT_DOUBLE) value.data<double>()[i] = uniform(random);
  }
  return value;  // integers and bools stay zero, strings empty (Tensor zero-fills on the host)
}

}  // namespace clab::tools
