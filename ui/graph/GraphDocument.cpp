#include "graph/GraphDocument.h"

#include "clab/core/DeviceName.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"
#include "clab/graph/OpRegistry.h"
#include "graph/AttrText.h"
#include "graph/GraphEditCommand.h"

#include <google/protobuf/util/message_differencer.h>

#include <QRegularExpression>
#include <QSet>
#include <QUndoStack>

namespace clab::ui {
namespace {

QString Q(const std::string& s) { return QString::fromStdString(s); }

// A node's inputs split into data inputs (in slot order, "" for an open slot) and control
// inputs ("^name"), and joined back with the open slots at the end dropped.
struct Inputs {
  QStringList data;
  QStringList control;

  explicit Inputs(const tensorflow::NodeDef& node) {
    for (const std::string& input : node.input()) {
      const QString text = Q(input);
      (text.startsWith('^') ? control : data) << text;
    }
  }
  void writeTo(tensorflow::NodeDef* node) {
    while (!data.isEmpty() && data.last().isEmpty()) data.removeLast();
    node->clear_input();
    for (const QString& input : data) node->add_input(input.toStdString());
    for (const QString& input : control) node->add_input(input.toStdString());
  }
};

QString InputNode(const QString& input) {
  QString name = input.startsWith('^') ? input.mid(1) : input;
  const int colon = name.lastIndexOf(':');
  if (colon > 0) {
    bool digits = false;
    name.mid(colon + 1).toInt(&digits);
    if (digits) name = name.left(colon);
  }
  return name;
}

QString InputText(const QString& node, int output) {
  return output == 0 ? node : QStringLiteral("%1:%2").arg(node).arg(output);
}

// The argument of `op` behind data input `slot`, counting list arguments' sizes.
const ArgDef* ArgForSlot(const OpDef& op, const tensorflow::NodeDef& node, int slot) {
  int first = 0;
  for (const ArgDef& arg : op.inputs) {
    int count = 1;
    if (!arg.number_attr.empty()) {
      int64_t n = 0;
      count = GetNodeAttr(node, arg.number_attr, &n).ok() ? static_cast<int>(n) : 0;
    } else if (!arg.type_list_attr.empty()) {
      return nullptr;
    }
    if (slot < first + count) return &arg;
    first += count;
  }
  return nullptr;
}

bool SameNode(const tensorflow::NodeDef& a, const tensorflow::NodeDef& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

}  // namespace

GraphDocument::GraphDocument(QUndoStack* undo, QObject* parent)
    : QObject(parent), undo_(undo ? undo : new QUndoStack(this)) {
  load({});
}

void GraphDocument::setGraph(const tensorflow::GraphDef& graph) {
  load(graph);
  emit changed();
}

void GraphDocument::restore(const tensorflow::GraphDef& graph) {
  load(graph);
  emit changed();
  emit edited();
}

void GraphDocument::load(const tensorflow::GraphDef& graph) {
  graph_ = graph;
  index_.clear();
  for (int i = 0; i < graph_.node_size(); ++i) index_.insert(Q(graph_.node(i).name()), i);
  check_ = GraphValidator::check(graph_);
}

bool GraphDocument::push(const QString& text, const tensorflow::GraphDef& after) {
  undo_->push(new GraphEditCommand(text, this, graph_, after));
  return true;
}

const tensorflow::NodeDef* GraphDocument::node(const QString& name) const {
  const int i = indexOf(name);
  return i < 0 ? nullptr : &graph_.node(i);
}

tensorflow::NodeDef* GraphDocument::mutableNode(tensorflow::GraphDef* graph, const QString& name) const {
  const int i = indexOf(name);
  return i < 0 ? nullptr : graph->mutable_node(i);
}

QStringList GraphDocument::nodeNames() const {
  QStringList names;
  names.reserve(graph_.node_size());
  for (const auto& node : graph_.node()) names << Q(node.name());
  return names;
}

QString GraphDocument::uniqueName(const QString& base) const {
  if (!index_.contains(base)) return base;
  for (int i = 1;; ++i) {
    const QString candidate = QStringLiteral("%1_%2").arg(base).arg(i);
    if (!index_.contains(candidate)) return candidate;
  }
}

QList<QPair<QString, int>> GraphDocument::dataInputs(const QString& name) const {
  QList<QPair<QString, int>> inputs;
  const tensorflow::NodeDef* def = node(name);
  if (def == nullptr) return inputs;
  for (const QString& input : Inputs(*def).data) {
    if (input.isEmpty()) {
      inputs.append({QString(), 0});
      continue;
    }
    auto parsed = TensorId::Parse(input.toStdString());
    inputs.append(parsed.ok() ? qMakePair(Q(parsed->node), parsed->index) : qMakePair(QString(), 0));
  }
  return inputs;
}

QStringList GraphDocument::controlInputs(const QString& name) const {
  QStringList sources;
  if (const tensorflow::NodeDef* def = node(name))
    for (const QString& input : Inputs(*def).control) sources << input.mid(1);
  return sources;
}

QString GraphDocument::addNode(const QString& op_name, const QString& name, QString* error) {
  auto op = OpRegistry::Global().LookUp(op_name.toStdString());
  if (!op.ok()) {
    if (error) *error = Q(std::string(op.status().message()));
    return {};
  }
  static const QRegularExpression valid_name("^[A-Za-z0-9.][A-Za-z0-9_./]*$");
  const QString base = name.isEmpty() ? op_name : name;
  if (!valid_name.match(base).hasMatch()) {
    if (error)
      *error = QStringLiteral("'%1' is not a valid node name: names match [A-Za-z0-9.][A-Za-z0-9_./]*").arg(base);
    return {};
  }
  const QString unique = uniqueName(base);
  tensorflow::GraphDef after = graph_;
  tensorflow::NodeDef* def = after.add_node();
  def->set_name(unique.toStdString());
  def->set_op(op_name.toStdString());
  for (const AttrDef& attr : (*op)->attrs) {
    if (attr.default_value) {
      (*def->mutable_attr())[attr.name] = *attr.default_value;
      continue;
    }
    const DataType first = attr.allowed_types.empty() ? DT_FLOAT : attr.allowed_types.front();
    tensorflow::AttrValue value = AttrText::placeholderValue(Q(attr.type), first);
    if (attr.type == "int" && attr.has_minimum) value.set_i(attr.minimum);
    if (attr.type == "string" && !attr.allowed_values.empty()) value.set_s(attr.allowed_values.front());
    (*def->mutable_attr())[attr.name] = value;
  }
  // A Const's value follows its dtype.
  if (op_name == "Const") {
    DataType dtype = DT_FLOAT;
    GetNodeAttr(*def, "dtype", &dtype).IgnoreError();
    Tensor(dtype, TensorShape{}).AsProto((*def->mutable_attr())["value"].mutable_tensor(), true);
  }
  push(QStringLiteral("Add %1 (%2)").arg(unique, op_name), after);
  return unique;
}

bool GraphDocument::removeNodes(const QStringList& names) {
  QSet<QString> removed;
  for (const QString& name : names)
    if (index_.contains(name)) removed.insert(name);
  if (removed.isEmpty()) return false;
  tensorflow::GraphDef after;
  *after.mutable_versions() = graph_.versions();
  *after.mutable_library() = graph_.library();
  for (const auto& node : graph_.node()) {
    if (removed.contains(Q(node.name()))) continue;
    tensorflow::NodeDef* kept = after.add_node();
    *kept = node;
    Inputs inputs(node);
    for (QString& input : inputs.data)
      if (removed.contains(InputNode(input))) input.clear();
    for (auto it = inputs.control.begin(); it != inputs.control.end();)
      it = removed.contains(InputNode(*it)) ? inputs.control.erase(it) : it + 1;
    inputs.writeTo(kept);
  }
  push(removed.size() == 1 ? QStringLiteral("Remove %1").arg(*removed.begin())
                           : QStringLiteral("Remove %1 nodes").arg(removed.size()),
       after);
  return true;
}

bool GraphDocument::connectNodes(const QString& src, int output, const QString& dst, int input, QString* error) {
  auto refuse = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (!index_.contains(src)) return refuse(QStringLiteral("no node named '%1'").arg(src));
  if (!index_.contains(dst)) return refuse(QStringLiteral("no node named '%1'").arg(dst));
  if (src == dst) return refuse(QStringLiteral("'%1' cannot feed itself").arg(src));
  tensorflow::GraphDef after = graph_;
  tensorflow::NodeDef* def = mutableNode(&after, dst);
  Inputs inputs(*def);
  if (input < 0) {
    const QString control = "^" + src;
    if (inputs.control.contains(control)) return refuse(QStringLiteral("'%1' already waits for '%2'").arg(dst, src));
    inputs.control << control;
    inputs.writeTo(def);
    return push(QStringLiteral("Run %1 after %2").arg(dst, src), after);
  }
  const NodePorts src_ports = ports(src);
  if (output < 0 || output >= std::max<int>(1, static_cast<int>(src_ports.output_types.size())))
    return refuse(QStringLiteral("'%1' has no output %2").arg(src).arg(output));
  while (inputs.data.size() <= input) inputs.data << QString();
  inputs.data[input] = InputText(src, output);
  inputs.writeTo(def);
  // The input's type attr follows the source (float MatMul fed int32 becomes int32).
  const OpDef* op = OpRegistry::Global().Find(def->op());
  const DataType produced = static_cast<size_t>(output) < src_ports.output_types.size()
                                ? BaseType(src_ports.output_types[static_cast<size_t>(output)])
                                : DT_INVALID;
  if (op != nullptr && produced != DT_INVALID) {
    const ArgDef* arg = ArgForSlot(*op, *def, input);
    const AttrDef* attr = arg && !arg->type_attr.empty() ? op->FindAttr(arg->type_attr) : nullptr;
    if (attr != nullptr &&
        (attr->allowed_types.empty() || std::count(attr->allowed_types.begin(), attr->allowed_types.end(), produced)))
      (*def->mutable_attr())[attr->name] = AttrOf(produced);
  }
  return push(QStringLiteral("Connect %1 to %2").arg(InputText(src, output), dst), after);
}

bool GraphDocument::disconnectInput(const QString& dst, int input) {
  const tensorflow::NodeDef* current = node(dst);
  if (current == nullptr) return false;
  Inputs inputs(*current);
  if (input < 0 || input >= inputs.data.size() || inputs.data[input].isEmpty()) return false;
  const QString was = inputs.data[input];
  inputs.data[input].clear();
  tensorflow::GraphDef after = graph_;
  inputs.writeTo(mutableNode(&after, dst));
  return push(QStringLiteral("Disconnect %1 from %2").arg(was, dst), after);
}

bool GraphDocument::disconnectControl(const QString& dst, const QString& src) {
  const tensorflow::NodeDef* current = node(dst);
  if (current == nullptr) return false;
  Inputs inputs(*current);
  if (!inputs.control.removeOne("^" + src)) return false;
  tensorflow::GraphDef after = graph_;
  inputs.writeTo(mutableNode(&after, dst));
  return push(QStringLiteral("%1 no longer waits for %2").arg(dst, src), after);
}

bool GraphDocument::setAttr(const QString& name, const QString& attr, const tensorflow::AttrValue& value,
                            QString* error) {
  if (!index_.contains(name)) {
    if (error) *error = QStringLiteral("no node named '%1'").arg(name);
    return false;
  }
  tensorflow::GraphDef after = graph_;
  tensorflow::NodeDef* def = mutableNode(&after, name);
  (*def->mutable_attr())[attr.toStdString()] = value;
  if (SameNode(*def, *node(name))) return false;
  return push(QStringLiteral("Set %1.%2 to %3").arg(name, attr, Q(AttrValueSummary(value)).left(40)), after);
}

bool GraphDocument::removeAttr(const QString& name, const QString& attr) {
  const tensorflow::NodeDef* current = node(name);
  if (current == nullptr || !current->attr().count(attr.toStdString())) return false;
  tensorflow::GraphDef after = graph_;
  mutableNode(&after, name)->mutable_attr()->erase(attr.toStdString());
  return push(QStringLiteral("Remove %1.%2").arg(name, attr), after);
}

bool GraphDocument::setDevice(const QString& name, const QString& device, QString* error) {
  return setDevices({name}, device, error);
}

bool GraphDocument::setDevices(const QStringList& names, const QString& device, QString* error) {
  for (const QString& name : names)
    if (node(name) == nullptr) {
      if (error) *error = QStringLiteral("no node named '%1'").arg(name);
      return false;
    }
  const QString spec = device.trimmed();
  auto parsed = DeviceName::Parse(spec.toStdString());
  if (!parsed.ok()) {
    if (error) *error = Q(std::string(parsed.status().message()));
    return false;
  }
  tensorflow::GraphDef after = graph_;
  int changed = 0;
  for (const QString& name : names) {
    if (Q(node(name)->device()) == spec) continue;
    mutableNode(&after, name)->set_device(spec.toStdString());
    ++changed;
  }
  if (changed == 0) return false;
  const QString what = names.size() == 1 ? names.first() : tr("%1 nodes").arg(names.size());
  return push(spec.isEmpty() ? tr("Clear the device of %1").arg(what) : tr("Place %1 on %2").arg(what, spec), after);
}

bool GraphDocument::renameNode(const QString& name, const QString& new_name, QString* error) {
  auto refuse = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (!index_.contains(name)) return refuse(QStringLiteral("no node named '%1'").arg(name));
  if (new_name == name) return false;
  static const QRegularExpression valid_name("^[A-Za-z0-9.][A-Za-z0-9_./]*$");
  if (!valid_name.match(new_name).hasMatch())
    return refuse(
        QStringLiteral("'%1' is not a valid node name: names match [A-Za-z0-9.][A-Za-z0-9_./]*").arg(new_name));
  if (index_.contains(new_name)) return refuse(QStringLiteral("a node named '%1' already exists").arg(new_name));
  tensorflow::GraphDef after = graph_;
  mutableNode(&after, name)->set_name(new_name.toStdString());
  const std::string colocation = ("loc:@" + name).toStdString();
  for (auto& def : *after.mutable_node()) {
    for (std::string& input : *def.mutable_input()) {
      const QString text = Q(input);
      if (InputNode(text) != name) continue;
      if (text.startsWith('^')) input = ("^" + new_name).toStdString();
      else input = (new_name + text.mid(name.size())).toStdString();
    }
    auto attr = def.mutable_attr()->find("_class");
    if (attr != def.mutable_attr()->end())
      for (std::string& s : *attr->second.mutable_list()->mutable_s())
        if (s == colocation) s = ("loc:@" + new_name).toStdString();
  }
  return push(QStringLiteral("Rename %1 to %2").arg(name, new_name), after);
}

void GraphDocument::replaceGraph(const QString& text, const tensorflow::GraphDef& after) { push(text, after); }

}  // namespace clab::ui
