#include "clab/graph/GraphBuilder.h"

#include "clab/core/DeviceName.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"
#include "clab/graph/GraphVersions.h"
#include "clab/graph/OpRegistry.h"

#include <absl/strings/ascii.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <optional>
#include <set>

namespace clab {

std::string Output::name() const { return index_ == kControl ? node_ : StrCat(node_, ":", index_); }

std::string Output::input_string() const {
  if (index_ == kControl) return "^" + node_;
  return index_ == 0 ? node_ : StrCat(node_, ":", index_);
}

GraphBuilder::ScopeGuard::ScopeGuard(ScopeGuard&& other) noexcept : exit_(std::move(other.exit_)) {
  other.exit_ = nullptr;
}

GraphBuilder::ScopeGuard::~ScopeGuard() {
  if (exit_) exit_();
}

namespace {

struct DeviceScope {
  enum class Kind { kSpec, kFunction, kStop };
  Kind kind = Kind::kSpec;
  DeviceName spec;
  DeviceFunction function;
};

struct ColocationScope {
  std::string node;
  // Device scopes entered before this one are suppressed inside it, as TensorFlow's
  // colocate_with does: colocation is the stronger constraint.
  size_t device_scopes_before = 0;
};

struct ControlScope {
  std::vector<std::string> nodes;
  // Nodes built inside this scope already depend on its nodes, so a node fed by one of
  // them needs no extra control edge (TensorFlow prunes these the same way).
  std::set<std::string> built_inside;
};

struct NodeInfo {
  int index = 0;  // in graph_.node()
  std::vector<DataType> output_types;
  std::vector<PartialShape> output_shapes;
  std::optional<Tensor> constant;
};

std::vector<std::string> ColocationGroupsOf(const tensorflow::NodeDef& node) {
  std::vector<std::string> groups;
  if (HasNodeAttr(node, "_class")) GetNodeAttr(node, "_class", &groups).IgnoreError();
  groups.erase(
      std::remove_if(groups.begin(), groups.end(), [](const std::string& g) { return g.rfind("loc:@", 0) != 0; }),
      groups.end());
  if (groups.empty()) groups.push_back("loc:@" + node.name());
  return groups;
}

}  // namespace

struct GraphBuilder::Impl {
  std::map<std::string, int> names_in_use;  // lower-cased, as TensorFlow keys them
  std::vector<std::string> name_scopes{""};
  std::vector<DeviceScope> device_scopes;
  std::vector<ColocationScope> colocation_scopes;
  std::vector<ControlScope> control_scopes;
  std::map<std::string, std::vector<std::string>> collections;
  std::map<std::string, NodeInfo, std::less<>> nodes;

  const NodeInfo* Find(std::string_view name) const {
    auto it = nodes.find(name);
    return it == nodes.end() ? nullptr : &it->second;
  }
  void ApplyDeviceScopes(GraphBuilder& builder, tensorflow::NodeDef* def) const;
};

GraphBuilder::GraphBuilder() : impl_(std::make_unique<Impl>()) {
  graph_.mutable_versions()->set_producer(kGraphDefProducer);
  graph_.mutable_versions()->set_min_consumer(kGraphDefMinConsumer);
}
GraphBuilder::~GraphBuilder() = default;

void GraphBuilder::RecordError(const Status& status) {
  if (status_.ok() && !status.ok()) status_ = status;
}

std::string GraphBuilder::CurrentNameScope() const { return impl_->name_scopes.back(); }

std::string GraphBuilder::UniqueName(std::string_view base) {
  const std::string& scope = impl_->name_scopes.back();
  std::string name = scope.empty() ? std::string(base) : StrCat(scope, "/", base);
  // TensorFlow's scheme: "x", then "x_1", "x_2"... skipping names taken some other way,
  // compared without case so that names stay distinct on case-insensitive file systems.
  std::string key = absl::AsciiStrToLower(name);
  int count = impl_->names_in_use[key]++;
  if (count == 0) return name;
  const std::string base_key = key;
  std::string candidate;
  do {
    candidate = StrCat(base_key, "_", count++);
  } while (impl_->names_in_use.count(candidate));
  impl_->names_in_use[candidate] = 1;
  return StrCat(name, "_", count - 1);
}

GraphBuilder::ScopeGuard GraphBuilder::WithNameScope(std::string_view name) {
  std::string scope;
  if (name.empty()) {
    scope = "";  // back to the top level, as name_scope("") does
  } else if (name.back() == '/') {
    scope = std::string(name.substr(0, name.size() - 1));  // re-enter an existing scope as is
  } else {
    scope = UniqueName(name);
  }
  impl_->name_scopes.push_back(scope);
  return ScopeGuard([impl = impl_.get()] { impl->name_scopes.pop_back(); });
}

GraphBuilder::ScopeGuard GraphBuilder::WithDevice(std::string_view spec) {
  auto parsed = DeviceName::Parse(spec);
  if (!parsed.ok()) {
    RecordError(parsed.status());
    return ScopeGuard(nullptr);
  }
  DeviceScope scope;
  scope.spec = *parsed;
  impl_->device_scopes.push_back(std::move(scope));
  return ScopeGuard([impl = impl_.get()] { impl->device_scopes.pop_back(); });
}

GraphBuilder::ScopeGuard GraphBuilder::WithDevice(DeviceFunction fn) {
  // An empty function (what ReplicaDeviceSetter returns without ps tasks) changes nothing.
  // TensorFlow treats device(None) as "stop"; that spelling is WithoutDevice() here.
  if (!fn) return ScopeGuard(nullptr);
  DeviceScope scope;
  scope.kind = DeviceScope::Kind::kFunction;
  scope.function = std::move(fn);
  impl_->device_scopes.push_back(std::move(scope));
  return ScopeGuard([impl = impl_.get()] { impl->device_scopes.pop_back(); });
}

GraphBuilder::ScopeGuard GraphBuilder::WithoutDevice() {
  DeviceScope scope;
  scope.kind = DeviceScope::Kind::kStop;
  impl_->device_scopes.push_back(std::move(scope));
  return ScopeGuard([impl = impl_.get()] { impl->device_scopes.pop_back(); });
}

GraphBuilder::ScopeGuard GraphBuilder::ColocateWith(const Output& op) {
  if (impl_->Find(op.node()) == nullptr) {
    RecordError(errors::NotFound("ColocateWith: node '", op.node(), "' is not in the graph"));
    return ScopeGuard(nullptr);
  }
  impl_->colocation_scopes.push_back({op.node(), impl_->device_scopes.size()});
  return ScopeGuard([impl = impl_.get()] { impl->colocation_scopes.pop_back(); });
}

GraphBuilder::ScopeGuard GraphBuilder::WithControlDependencies(const std::vector<Output>& ops) {
  ControlScope scope;
  for (const Output& op : ops) {
    if (impl_->Find(op.node()) == nullptr) {
      RecordError(errors::NotFound("Control dependency '", op.node(), "' is not in the graph"));
      continue;
    }
    if (std::find(scope.nodes.begin(), scope.nodes.end(), op.node()) == scope.nodes.end())
      scope.nodes.push_back(op.node());
  }
  impl_->control_scopes.push_back(std::move(scope));
  return ScopeGuard([impl = impl_.get()] { impl->control_scopes.pop_back(); });
}

void GraphBuilder::AddToCollection(const std::string& collection, const std::string& node) {
  impl_->collections[collection].push_back(node);
}

const std::vector<std::string>& GraphBuilder::Collection(const std::string& collection) const {
  static const std::vector<std::string> kEmpty;
  auto it = impl_->collections.find(collection);
  return it == impl_->collections.end() ? kEmpty : it->second;
}

std::vector<std::string> GraphBuilder::CollectionNames() const {
  std::vector<std::string> names;
  for (const auto& [name, nodes] : impl_->collections)
    if (!nodes.empty()) names.push_back(name);
  return names;
}

const tensorflow::NodeDef* GraphBuilder::FindNode(std::string_view name) const {
  const NodeInfo* info = impl_->Find(name);
  return info == nullptr ? nullptr : &graph_.node(info->index);
}

DataType GraphBuilder::TypeOf(const Output& output) const {
  const NodeInfo* info = impl_->Find(output.node());
  if (info == nullptr || output.index() < 0 || static_cast<size_t>(output.index()) >= info->output_types.size())
    return DT_INVALID;
  return info->output_types[static_cast<size_t>(output.index())];
}

PartialShape GraphBuilder::ShapeOf(const Output& output) const {
  const NodeInfo* info = impl_->Find(output.node());
  if (info == nullptr || output.index() < 0 || static_cast<size_t>(output.index()) >= info->output_shapes.size())
    return PartialShape::Unknown();
  return info->output_shapes[static_cast<size_t>(output.index())];
}

const Tensor* GraphBuilder::ConstantValue(const Output& output) const {
  const NodeInfo* info = impl_->Find(output.node());
  if (info == nullptr || output.index() != 0 || !info->constant) return nullptr;
  return &*info->constant;
}

std::vector<Output> GraphBuilder::Outputs(const std::string& node) const {
  std::vector<Output> outputs;
  if (const NodeInfo* info = impl_->Find(node))
    for (size_t i = 0; i < info->output_types.size(); ++i) outputs.emplace_back(node, static_cast<int>(i));
  return outputs;
}

namespace {

// Sets the type attrs (T, N, Tlist) a node leaves out from the types of its inputs, and
// checks the ones it gives, the way TensorFlow's Python op wrappers do.
Status InferInputAttrs(const OpDef& op, const std::vector<DataType>& input_types, tensorflow::NodeDef* node) {
  auto& attrs = *node->mutable_attr();
  const std::string where = StrCat("'", node->name(), "' (op '", op.name, "')");

  std::vector<int> counts(op.inputs.size(), 1);
  int known = 0, unknown_arg = -1;
  for (size_t a = 0; a < op.inputs.size(); ++a) {
    const ArgDef& arg = op.inputs[a];
    const std::string& count_attr = !arg.number_attr.empty() ? arg.number_attr : arg.type_list_attr;
    if (count_attr.empty()) {
      ++known;
      continue;
    }
    auto it = attrs.find(count_attr);
    if (it != attrs.end()) {
      counts[a] = static_cast<int>(!arg.number_attr.empty() ? it->second.i() : it->second.list().type_size());
      known += counts[a];
    } else if (unknown_arg < 0) {
      unknown_arg = static_cast<int>(a);
    } else {
      return errors::InvalidArgument("Node ", where, " takes two input lists; set attr '", count_attr, "'");
    }
  }
  const int given = static_cast<int>(input_types.size());
  if (unknown_arg >= 0) counts[static_cast<size_t>(unknown_arg)] = std::max(0, given - known);
  int expected = 0;
  for (int c : counts) expected += c;
  if (expected != given)
    return errors::InvalidArgument("Node ", where, " was given ", given, " input(s) but the op expects ", expected);
  if (unknown_arg >= 0) {
    const ArgDef& arg = op.inputs[static_cast<size_t>(unknown_arg)];
    if (!arg.number_attr.empty())
      attrs[arg.number_attr] = AttrOf(static_cast<int64_t>(counts[static_cast<size_t>(unknown_arg)]));
  }

  size_t next = 0;
  for (size_t a = 0; a < op.inputs.size(); ++a) {
    const ArgDef& arg = op.inputs[a];
    std::vector<DataType> list_types;
    for (int k = 0; k < counts[a]; ++k) {
      const DataType type = input_types[next++];
      if (type == DT_INVALID) continue;  // the producer failed; its error is already recorded
      if (arg.is_ref && !IsRefType(type))
        return errors::InvalidArgument("Input '", arg.name, "' of '", op.name, "' Op requires l-value input (node '",
                                       node->name(), "' was given a ", DataTypeName(type), ")");
      const DataType base = BaseType(type);
      list_types.push_back(base);
      if (arg.fixed_type != DT_INVALID) {
        if (base != arg.fixed_type)
          return errors::InvalidArgument("Input '", arg.name, "' of '", op.name, "' Op has type ", DataTypeName(base),
                                         " that does not match expected type of ", DataTypeName(arg.fixed_type),
                                         " (node '", node->name(), "')");
      } else if (!arg.type_attr.empty()) {
        auto it = attrs.find(arg.type_attr);
        const bool unset = it == attrs.end() ||
                           (it->second.value_case() == tensorflow::AttrValue::kType && it->second.type() == DT_INVALID);
        if (unset) {
          attrs[arg.type_attr] = AttrOf(base);
        } else if (it->second.value_case() == tensorflow::AttrValue::kType && it->second.type() != base) {
          return errors::InvalidArgument("Input '", arg.name, "' of '", op.name, "' Op has type ", DataTypeName(base),
                                         " that does not match type ", DataTypeName(it->second.type()), " of attr '",
                                         arg.type_attr, "' (node '", node->name(), "')");
        }
      }
    }
    if (!arg.type_list_attr.empty() && !attrs.count(arg.type_list_attr)) attrs[arg.type_list_attr] = AttrOf(list_types);
  }
  return OkStatus();
}

}  // namespace

Output GraphBuilder::AddNode(std::string_view op, const std::vector<Output>& inputs,
                             std::map<std::string, tensorflow::AttrValue> attrs, std::string_view name) {
  Impl& impl = *impl_;
  tensorflow::NodeDef def;
  if (!name.empty() && name.back() == '/') {
    // A scope name used as a node name ("w/" inside tf.Variable): taken exactly.
    def.set_name(std::string(name.substr(0, name.size() - 1)));
    impl.names_in_use.try_emplace(absl::AsciiStrToLower(def.name()), 1);
  } else {
    def.set_name(UniqueName(name.empty() ? op : name));
  }
  def.set_op(std::string(op));
  if (impl.Find(def.name()) != nullptr)
    RecordError(errors::AlreadyExists("Node '", def.name(), "' is already in the graph"));
  for (auto& [key, value] : attrs) (*def.mutable_attr())[key] = std::move(value);

  // Inputs: data first, then control edges (explicit ones, then the control scopes').
  std::vector<DataType> input_types;
  std::vector<PartialShape> input_shapes;
  std::vector<const Tensor*> input_constants;
  std::vector<std::string> controls;
  std::set<std::string> data_sources;
  auto add_control = [&](const std::string& node) {
    if (!data_sources.count(node) && std::find(controls.begin(), controls.end(), node) == controls.end())
      controls.push_back(node);
  };
  for (const Output& input : inputs) {
    const NodeInfo* source = impl.Find(input.node());
    if (!input.valid() || source == nullptr) {
      RecordError(errors::InvalidArgument("Node '", def.name(), "' (op '", op, "'): input '", input.node(),
                                          input.valid() ? "' is not in the graph" : "' is empty"));
      if (input.index() != Output::kControl) {
        input_types.push_back(DT_INVALID);
        input_shapes.push_back(PartialShape::Unknown());
        input_constants.push_back(nullptr);
      }
      continue;
    }
    if (input.index() == Output::kControl) continue;
    if (static_cast<size_t>(input.index()) >= source->output_types.size())
      RecordError(errors::InvalidArgument("Node '", def.name(), "': input '", input.input_string(), "' names output ",
                                          input.index(), " of a node with ", source->output_types.size(),
                                          " output(s)"));
    def.add_input(input.input_string());
    data_sources.insert(input.node());
    input_types.push_back(TypeOf(input));
    input_shapes.push_back(ShapeOf(input));
    input_constants.push_back(ConstantValue(input));
  }
  for (const Output& input : inputs)
    if (input.index() == Output::kControl && impl.Find(input.node()) != nullptr) add_control(input.node());
  for (const ControlScope& scope : impl.control_scopes) {
    bool dominated = std::any_of(data_sources.begin(), data_sources.end(),
                                 [&](const std::string& src) { return scope.built_inside.count(src) > 0; });
    if (!dominated)
      for (const auto& node : scope.nodes) add_control(node);
  }
  for (const auto& node : controls) def.add_input("^" + node);

  const OpDef* op_def = OpRegistry::Global().Find(op);
  std::vector<DataType> output_types;
  if (op_def == nullptr) {
    RecordError(errors::NotFound("Op type not registered '", op, "' (node '", def.name(), "')"));
  } else {
    Status status = InferInputAttrs(*op_def, input_types, &def);
    if (status.ok()) status = AddDefaultsAndValidate(*op_def, &def);
    std::vector<DataType> declared_inputs;
    if (status.ok()) status = InOutTypesForNode(def, *op_def, &declared_inputs, &output_types);
    RecordError(status);
    if (!status.ok()) output_types.clear();
  }

  impl.ApplyDeviceScopes(*this, &def);

  NodeInfo info;
  info.index = graph_.node_size();
  info.output_types = output_types;
  info.output_shapes.assign(output_types.size(), PartialShape::Unknown());
  if (op_def != nullptr && !output_types.empty() &&
      std::none_of(input_types.begin(), input_types.end(), [](DataType t) { return t == DT_INVALID; })) {
    std::vector<PartialShape> shapes;
    Status status = InferNodeShapes(def, *op_def, input_types, input_shapes, input_constants, &shapes);
    RecordError(status);
    if (status.ok()) info.output_shapes = std::move(shapes);
  }
  if (def.op() == "Const") {
    Tensor value;
    if (GetNodeAttr(def, "value", &value).ok()) info.constant = std::move(value);
  }

  for (ControlScope& scope : impl.control_scopes) scope.built_inside.insert(def.name());
  const std::string node_name = def.name();
  *graph_.add_node() = std::move(def);
  impl.nodes[node_name] = std::move(info);
  return Output(node_name, 0);
}

void GraphBuilder::Impl::ApplyDeviceScopes(GraphBuilder& builder, tensorflow::NodeDef* def) const {
  const Impl& impl = *this;
  const size_t first_active = impl.colocation_scopes.empty() ? 0 : impl.colocation_scopes.back().device_scopes_before;
  // Innermost first: each scope sees what the inner ones decided and fills in the rest.
  for (size_t i = impl.device_scopes.size(); i-- > first_active;) {
    const DeviceScope& scope = impl.device_scopes[i];
    if (scope.kind == DeviceScope::Kind::kStop) break;
    auto current = DeviceName::Parse(def->device());
    if (!current.ok()) {
      builder.RecordError(errors::InvalidArgument("Node '", def->name(), "': ", current.status().message()));
      return;
    }
    if (scope.kind == DeviceScope::Kind::kSpec) {
      DeviceName merged = scope.spec;
      merged.OverrideWith(*current);
      def->set_device(merged.ToString());
      continue;
    }
    const std::string chosen = scope.function(*def);
    auto parsed = DeviceName::Parse(chosen);
    if (!parsed.ok()) {
      builder.RecordError(errors::InvalidArgument("Device function for node '", def->name(), "' returned '", chosen,
                                                  "': ", parsed.status().message()));
      def->set_device(chosen);
      return;
    }
    def->set_device(parsed->ToString());
  }

  if (impl.colocation_scopes.empty()) return;
  std::set<std::string> groups;
  for (const ColocationScope& scope : impl.colocation_scopes) {
    const tensorflow::NodeDef* target = builder.FindNode(scope.node);
    for (auto& group : ColocationGroupsOf(*target)) groups.insert(group);
  }
  // The innermost colocation decides the device; every group joins the _class list.
  const tensorflow::NodeDef* innermost = builder.FindNode(impl.colocation_scopes.back().node);
  if (!innermost->device().empty()) def->set_device(innermost->device());
  (*def->mutable_attr())["_class"] = AttrOf(std::vector<std::string>(groups.begin(), groups.end()));
}

}  // namespace clab
