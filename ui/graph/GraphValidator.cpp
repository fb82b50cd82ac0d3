#include "graph/GraphValidator.h"

#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"
#include "clab/graph/OpRegistry.h"

#include <QRegularExpression>

#include <map>
#include <queue>
#include <set>

namespace clab::ui {
namespace {

struct DataEdge {
  int src = 0;
  int src_output = 0;  // -1: control
  int dst = 0;
  int dst_input = 0;
};

// A reference may feed a plain input (it is read): the engine's rule.
bool TypesCompatible(DataType produced, DataType expected) {
  if (produced == expected) return true;
  return IsRefType(produced) && !IsRefType(expected) && BaseType(produced) == expected;
}

// Port names of the op's inputs (or outputs), a list argument expanded to name_0, name_1...
QStringList ExpandArgs(const std::vector<ArgDef>& args, const tensorflow::NodeDef& node) {
  QStringList names;
  for (const ArgDef& arg : args) {
    int count = 1;
    bool list = false;
    if (!arg.number_attr.empty()) {
      int64_t n = 0;
      list = true;
      count = GetNodeAttr(node, arg.number_attr, &n).ok() ? static_cast<int>(n) : 0;
    } else if (!arg.type_list_attr.empty()) {
      std::vector<DataType> types;
      list = true;
      count = GetNodeAttr(node, arg.type_list_attr, &types).ok() ? static_cast<int>(types.size()) : 0;
    }
    const QString name = QString::fromStdString(arg.name);
    for (int i = 0; i < count; ++i) names << (list ? QStringLiteral("%1_%2").arg(name).arg(i) : name);
  }
  return names;
}

QStringList Numbered(const QString& base, int count) {
  QStringList names;
  for (int i = 0; i < count; ++i) names << QStringLiteral("%1_%2").arg(base).arg(i);
  return names;
}

QString PortText(const NodePorts& ports, int slot) {
  const QString name = slot < ports.input_names.size() ? ports.input_names[slot] : QString::number(slot);
  const DataType dtype = static_cast<size_t>(slot) < ports.input_types.size() ? ports.input_types[slot] : DT_INVALID;
  return dtype == DT_INVALID ? name : QStringLiteral("%1: %2").arg(name, QString::fromStdString(DataTypeName(dtype)));
}

}  // namespace

QStringList GraphCheck::messages(const tensorflow::GraphDef& graph) const {
  QStringList lines;
  if (!graph_error.isEmpty()) lines << graph_error;
  QSet<QString> seen;
  for (const auto& node : graph.node()) {
    const QString name = QString::fromStdString(node.name());
    if (errors.contains(name) && !seen.contains(name)) {
      seen.insert(name);
      lines << name + ": " + errors.value(name);
    }
  }
  return lines;
}

GraphCheck GraphValidator::check(const tensorflow::GraphDef& graph) {
  const OpRegistry& registry = OpRegistry::Global();
  GraphCheck check;
  const int n = graph.node_size();
  QHash<QString, int> index;
  std::vector<tensorflow::NodeDef> filled(static_cast<size_t>(n));
  std::vector<const OpDef*> ops(static_cast<size_t>(n), nullptr);
  std::vector<bool> typed(static_cast<size_t>(n), false);
  std::vector<bool> duplicate(static_cast<size_t>(n), false);
  auto name_of = [&](int i) { return QString::fromStdString(graph.node(i).name()); };
  auto fail = [&](int i, const auto& message) {  // std::string or the status's string_view
    const QString name = name_of(i);
    if (!check.errors.contains(name))
      check.errors.insert(name, QString::fromUtf8(message.data(), static_cast<qsizetype>(message.size())));
  };

  // Nodes: the op, its attrs, the types of its ports.
  for (int i = 0; i < n; ++i) {
    const tensorflow::NodeDef& def = graph.node(i);
    const QString name = name_of(i);
    if (index.contains(name)) {
      duplicate[static_cast<size_t>(i)] = true;
      fail(i, StrCat("Node '", def.name(), "' is defined twice in the GraphDef (nodes ", index.value(name), " and ", i,
                     ")"));
      continue;
    }
    index.insert(name, i);
    NodePorts ports;
    auto op = registry.LookUp(def.op());
    if (!op.ok()) {
      fail(i, op.status().message());
    } else {
      ops[static_cast<size_t>(i)] = *op;
      tensorflow::NodeDef& node = filled[static_cast<size_t>(i)];
      node = def;
      const Status valid = AddDefaultsAndValidate(**op, &node);
      if (!valid.ok()) fail(i, valid.message());
      std::vector<DataType> in, out;
      const Status types = valid.ok() ? InOutTypesForNode(node, **op, &in, &out) : valid;
      if (types.ok()) {
        typed[static_cast<size_t>(i)] = true;
        ports.input_types = in;
        ports.output_types = out;
      } else {
        fail(i, types.message());
      }
      ports.input_names = ExpandArgs((*op)->inputs, node);
      ports.output_names = ExpandArgs((*op)->outputs, node);
      if (typed[static_cast<size_t>(i)]) {
        if (ports.input_names.size() != static_cast<int>(in.size()))
          ports.input_names = Numbered("input", static_cast<int>(in.size()));
        if (ports.output_names.size() != static_cast<int>(out.size()))
          ports.output_names = Numbered("output", static_cast<int>(out.size()));
      }
    }
    check.ports.insert(name, ports);
  }

  // Inputs: every data input names an existing output of a compatible type.
  std::vector<DataEdge> edges;
  std::map<int, int> referenced_outputs;  // node -> highest output slot a consumer names + 1
  for (int i = 0; i < n; ++i) {
    if (duplicate[static_cast<size_t>(i)]) continue;
    const tensorflow::NodeDef& def = graph.node(i);
    NodePorts& ports = check.ports[name_of(i)];
    int data_slot = 0;
    QList<int> unconnected;
    for (const std::string& input : def.input()) {
      if (input.empty()) {  // a slot the editor keeps open while later slots are connected
        unconnected << data_slot++;
        continue;
      }
      auto parsed = TensorId::Parse(input);
      if (!parsed.ok()) {
        fail(i, StrCat("Node '", def.name(), "': ", parsed.status().message()));
        if (input[0] != '^') ++data_slot;
        continue;
      }
      const int src = index.value(QString::fromStdString(parsed->node), -1);
      const bool control = parsed->index == Edge::kControlSlot;
      if (src < 0) {
        fail(i, StrCat("Node '", def.name(), "': Unknown input node '", input, "'"));
        if (!control) ++data_slot;
        continue;
      }
      if (control) {
        edges.push_back({src, -1, i, -1});
        continue;
      }
      const NodePorts& src_ports = check.ports[name_of(src)];
      int& referenced = referenced_outputs[src];
      referenced = std::max(referenced, parsed->index + 1);
      if (typed[static_cast<size_t>(src)]) {
        const int outputs = static_cast<int>(src_ports.output_types.size());
        if (parsed->index >= outputs) {
          fail(i, StrCat("Node '", def.name(), "': Connecting to invalid output ", parsed->index, " of source node ",
                         parsed->node, " which has ", outputs, " outputs"));
          ++data_slot;
          continue;
        }
        if (typed[static_cast<size_t>(i)] && static_cast<size_t>(data_slot) < ports.input_types.size()) {
          const DataType produced = src_ports.output_types[static_cast<size_t>(parsed->index)];
          const DataType expected = ports.input_types[static_cast<size_t>(data_slot)];
          if (!TypesCompatible(produced, expected))
            fail(i, StrCat("Input ", data_slot, " of node ", def.name(), " was passed ", DataTypeName(produced),
                           " from ", input, " incompatible with expected ", DataTypeName(expected), "."));
        }
      }
      edges.push_back({src, parsed->index, i, data_slot++});
    }
    if (!typed[static_cast<size_t>(i)]) {
      if (ports.input_names.size() < data_slot) ports.input_names = Numbered("input", data_slot);
      ports.input_types.resize(static_cast<size_t>(ports.input_names.size()), DT_INVALID);
      continue;
    }
    const int expected = static_cast<int>(ports.input_types.size());
    for (int slot = data_slot; slot < expected; ++slot) unconnected << slot;
    if (data_slot > expected) {
      QStringList types;
      for (DataType t : ports.input_types) types << QString::fromStdString(DataTypeName(t));
      fail(i, StrCat("Node '", def.name(), "': NodeDef expected inputs '", types.join(", ").toStdString(),
                     "' do not match ", data_slot, " inputs specified"));
    } else if (!unconnected.isEmpty()) {
      QStringList parts;
      for (int slot : unconnected) parts << QStringLiteral("%1 (%2)").arg(slot).arg(PortText(ports, slot));
      fail(i, StrCat("Node '", def.name(), "': ", unconnected.size() == 1 ? "input " : "inputs ",
                     parts.join(", ").toStdString(), unconnected.size() == 1 ? " is" : " are", " not connected"));
    }
  }
  // An unknown op has as many outputs as its consumers use.
  for (int i = 0; i < n; ++i) {
    if (duplicate[static_cast<size_t>(i)] || typed[static_cast<size_t>(i)]) continue;
    NodePorts& ports = check.ports[name_of(i)];
    const int outputs = std::max({1, referenced_outputs[i], static_cast<int>(ports.output_names.size())});
    if (ports.output_names.size() < outputs) ports.output_names = Numbered("output", outputs);
    ports.output_types.resize(static_cast<size_t>(outputs), DT_INVALID);
  }
  for (auto it = check.ports.begin(); it != check.ports.end(); ++it)
    it->output_shapes.assign(it->output_types.size(), PartialShape::Unknown());

  // Order (Kahn); what cannot be ordered holds or follows a cycle.
  std::vector<std::vector<int>> out_edges(static_cast<size_t>(n)), in_edges(static_cast<size_t>(n));
  std::vector<int> waiting(static_cast<size_t>(n), 0);
  for (size_t e = 0; e < edges.size(); ++e) {
    out_edges[static_cast<size_t>(edges[e].src)].push_back(static_cast<int>(e));
    in_edges[static_cast<size_t>(edges[e].dst)].push_back(static_cast<int>(e));
    ++waiting[static_cast<size_t>(edges[e].dst)];
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int i = 0; i < n; ++i)
    if (!duplicate[static_cast<size_t>(i)] && waiting[static_cast<size_t>(i)] == 0) ready.push(i);
  std::vector<int> order;
  std::vector<bool> ordered(static_cast<size_t>(n), false);
  while (!ready.empty()) {
    const int node = ready.top();
    ready.pop();
    order.push_back(node);
    ordered[static_cast<size_t>(node)] = true;
    for (int e : out_edges[static_cast<size_t>(node)])
      if (--waiting[static_cast<size_t>(edges[static_cast<size_t>(e)].dst)] == 0)
        ready.push(edges[static_cast<size_t>(e)].dst);
  }
  std::vector<int> remaining;
  for (int i = 0; i < n; ++i)
    if (!duplicate[static_cast<size_t>(i)] && !ordered[static_cast<size_t>(i)]) remaining.push_back(i);
  if (!remaining.empty()) {
    // The engine's message for these nodes: the same nodes and edges as control inputs of
    // NoOps (so that only the cycle can fail), in GraphDef order.
    std::set<int> pending(remaining.begin(), remaining.end());
    tensorflow::GraphDef loop;
    for (int i : remaining) {
      tensorflow::NodeDef* node = loop.add_node();
      node->set_name(graph.node(i).name());
      node->set_op("NoOp");
      for (int e : in_edges[static_cast<size_t>(i)])
        if (pending.count(edges[static_cast<size_t>(e)].src))
          node->add_input("^" + graph.node(edges[static_cast<size_t>(e)].src).name());
    }
    auto built = Graph::FromGraphDef(loop, registry);
    const std::string message = built.ok() ? "Graph contains a cycle" : std::string(built.status().message());
    // Keep only the nodes on a cycle: drop, again and again, those no remaining node feeds
    // back into (the nodes merely downstream of a cycle).
    std::set<int> on_cycle = pending;
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto it = on_cycle.begin(); it != on_cycle.end();) {
        bool has_out = false;
        for (int e : out_edges[static_cast<size_t>(*it)])
          has_out |= on_cycle.count(edges[static_cast<size_t>(e)].dst) > 0;
        if (!has_out) {
          it = on_cycle.erase(it);
          changed = true;
        } else {
          ++it;
        }
      }
    }
    for (int i : on_cycle) fail(i, message);
  }

  // Shapes, in order; Const values feed the shape functions that read them.
  std::map<int, Tensor> constants;
  for (int i : order) {
    const size_t u = static_cast<size_t>(i);
    if (!typed[u] || ops[u] == nullptr) continue;
    const QString name = name_of(i);
    NodePorts& ports = check.ports[name];
    if (check.errors.contains(name)) continue;
    const size_t inputs = ports.input_types.size();
    std::vector<PartialShape> shapes(inputs, PartialShape::Unknown());
    std::vector<const Tensor*> values(inputs, nullptr);
    for (int e : in_edges[u]) {
      const DataEdge& edge = edges[static_cast<size_t>(e)];
      if (edge.src_output < 0 || static_cast<size_t>(edge.dst_input) >= inputs) continue;
      const NodePorts& src = check.ports[name_of(edge.src)];
      if (static_cast<size_t>(edge.src_output) < src.output_shapes.size())
        shapes[static_cast<size_t>(edge.dst_input)] = src.output_shapes[static_cast<size_t>(edge.src_output)];
      auto constant = constants.find(edge.src);
      if (constant != constants.end()) values[static_cast<size_t>(edge.dst_input)] = &constant->second;
    }
    std::vector<PartialShape> outputs;
    const Status inferred = InferNodeShapes(filled[u], *ops[u], ports.input_types, shapes, values, &outputs);
    if (!inferred.ok()) {
      fail(i, inferred.message());
      continue;
    }
    if (outputs.size() == ports.output_shapes.size()) ports.output_shapes = outputs;
    if (graph.node(i).op() == "Const") {
      Tensor value;
      if (GetNodeAttr(filled[u], "value", &value).ok()) constants.emplace(i, std::move(value));
    }
  }

  // Whatever the engine still refuses (a name it does not accept, ...) goes to the node it
  // names, or to the graph.
  if (check.errors.isEmpty()) {
    auto built = Graph::FromGraphDef(graph, registry);
    if (!built.ok()) {
      const QString message = QString::fromStdString(std::string(built.status().message()));
      static const QRegularExpression quoted("'([^']+)'");
      const auto match = quoted.match(message);
      if (match.hasMatch() && index.contains(match.captured(1))) check.errors.insert(match.captured(1), message);
      else check.graph_error = message;
    }
  }
  return check;
}

}  // namespace clab::ui
