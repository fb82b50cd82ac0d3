#include "commands/GraphShowCommand.h"

#include "clab/graph/Graph.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "cli/TextTable.h"
#include "formats/GraphFileReader.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>

#include <map>
#include <ostream>
#include <set>
#include <vector>

namespace clab::cli {
namespace {

bool IsVariableOp(absl::string_view op) { return op == "VariableV2" || op == "Variable" || op == "VarHandleOp"; }

std::string JoinTypes(const Node& node) {
  std::vector<std::string> names;
  for (DataType dtype : node.output_types()) names.push_back(DataTypeName(dtype));
  return names.empty() ? "-" : absl::StrJoin(names, ", ");
}

std::string JoinShapes(const Node& node, const std::map<std::string, std::vector<PartialShape>>& shapes) {
  if (node.num_outputs() == 0) return "-";
  auto found = shapes.find(node.name());
  std::vector<std::string> texts;
  for (int i = 0; i < node.num_outputs(); ++i) {
    const bool known = found != shapes.end() && static_cast<size_t>(i) < found->second.size();
    // "?" marks outputs that inference never reached (it stops at the first error).
    texts.push_back(known ? found->second[static_cast<size_t>(i)].DebugString() : "?");
  }
  return absl::StrJoin(texts, ", ");
}

// "7 nodes: 2 Const, 1 VariableV2, ...; 1 variable; no device requested (the placer chooses)"
std::string SummaryLine(const tensorflow::GraphDef& graph_def) {
  std::vector<std::string> op_order;
  std::map<std::string, int> op_counts;
  std::vector<std::string> device_order;
  std::map<std::string, int> device_counts;
  int variables = 0;
  for (const tensorflow::NodeDef& node : graph_def.node()) {
    if (op_counts[node.op()]++ == 0) op_order.push_back(node.op());
    if (!node.device().empty() && device_counts[node.device()]++ == 0) device_order.push_back(node.device());
    if (IsVariableOp(node.op())) ++variables;
  }

  std::vector<std::string> ops;
  for (const std::string& op : op_order) ops.push_back(absl::StrCat(op_counts[op], " ", op));
  std::string line = absl::StrCat(graph_def.node_size(), graph_def.node_size() == 1 ? " node" : " nodes");
  if (!ops.empty()) absl::StrAppend(&line, ": ", absl::StrJoin(ops, ", "));
  absl::StrAppend(&line, "; ", variables, variables == 1 ? " variable" : " variables");
  if (device_order.empty()) {
    absl::StrAppend(&line, "; no device requested (the placer chooses)");
  } else {
    std::vector<std::string> devices;
    for (const std::string& device : device_order)
      devices.push_back(absl::StrCat(device, " (", device_counts[device], ")"));
    absl::StrAppend(&line, "; devices requested: ", absl::StrJoin(devices, ", "));
  }
  return line;
}

}  // namespace

std::string GraphShowCommand::summary() const {
  return "Show a graph's nodes with their op, device, output types and shapes";
}

std::string GraphShowCommand::description() const {
  return "Reads a GraphDef, text (.pbtxt) or binary (.pb; the format is told from the bytes),\n"
         "as TensorFlow's tf.train.write_graph writes it, and prints one row per node: its op,\n"
         "the device it asks for (\"-\": none, the placer chooses), the types of its outputs,\n"
         "their shapes as inferred before any run (\"?\" = unknown), and its inputs.\n"
         "A MetaGraphDef (.meta) or SavedModel (saved_model.pb) shows the graph it holds. A summary\n"
         "line follows, then the ops ClusterLab cannot run (they load and show all the same) and\n"
         "the nodes whose shapes could not be inferred.";
}

void GraphShowCommand::DeclareFlags(FlagParser& flags) {
  flags.AddPositional("FILE", "the GraphDef (.pbtxt, .pb), MetaGraphDef (.meta) or SavedModel file", &path_);
}

Status GraphShowCommand::Run(std::ostream& out) {
  tools::GraphFileReader::Kind kind;
  CLAB_ASSIGN_OR_RETURN(const tensorflow::MetaGraphDef meta, tools::GraphFileReader::ReadMetaGraph(path_, &kind));
  const tensorflow::GraphDef& graph_def = meta.graph_def();
  const auto& declared = meta.meta_info_def().stripped_op_list().op();
  auto graph_or =
      Graph::FromForeignGraphDef(graph_def, std::vector<tensorflow::OpDefProto>(declared.begin(), declared.end()));
  if (!graph_or.ok()) return WithPrefix(graph_or.status(), absl::StrCat(path_, ": "));
  const Graph& graph = **graph_or;

  std::map<std::string, std::vector<PartialShape>> shapes;
  std::vector<std::string> shape_problems;
  InferGraphShapes(graph, &shapes, &shape_problems).IgnoreError();  // problems are collected

  TextTable table({"NODE", "OP", "DEVICE", "OUTPUT TYPES", "SHAPES", "INPUTS"});
  for (const tensorflow::NodeDef& def : graph_def.node()) {
    const Node* node = graph.FindNode(def.name());
    if (node == nullptr) continue;  // FromGraphDef accepted the graph, so every node is there
    table.AddRow({def.name(), def.op(), def.device().empty() ? "-" : def.device(), JoinTypes(*node),
                  JoinShapes(*node, shapes), absl::StrJoin(def.input(), ", ")});
  }
  table.Print(out);
  out << "\n" << tools::GraphFileReader::KindName(kind) << ": " << SummaryLine(graph_def) << "\n";
  if (graph_def.library().function_size() > 0) {
    std::vector<std::string> names;
    for (const auto& function : graph_def.library().function()) names.push_back(function.signature().name());
    out << "library: " << names.size() << (names.size() == 1 ? " function" : " functions")
        << ", run by the nodes that name them: "
        << absl::StrJoin(names.begin(), names.begin() + std::min<size_t>(names.size(), 4), ", ")
        << (names.size() > 4 ? ", ..." : "") << "\n";
  }
  for (const auto& [op, nodes] : graph.ForeignOps())
    out << "not run here: op " << op << " (no definition or kernel in ClusterLab; " << nodes.size()
        << (nodes.size() == 1 ? " node: " : " nodes, first: ") << nodes.front() << ")\n";
  for (const std::string& problem : shape_problems) out << "shape not inferred: " << problem << "\n";
  return OkStatus();
}

}  // namespace clab::cli
