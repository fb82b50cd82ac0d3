#include "clab/graph/OpRegistry.h"

#include "clab/graph/AttrValues.h"

#include <absl/strings/str_join.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>

namespace clab {
namespace {

using tensorflow::AttrValue;

// Registration mistakes are programming errors in the engine: stop at once, loudly, so the
// first test run points at the spec.
[[noreturn]] void DieOnBadRegistration(std::string_view op_name, std::string_view what) {
  std::fprintf(stderr, "clab: bad registration of op '%.*s': %.*s\n", static_cast<int>(op_name.size()), op_name.data(),
               static_cast<int>(what.size()), what.data());
  std::abort();
}

bool IsListType(std::string_view type) { return type.rfind("list(", 0) == 0; }

// The names of the list fields that hold something, to reject "list(int)" holding floats.
std::vector<std::string_view> NonEmptyListFields(const AttrValue::ListValue& list) {
  std::vector<std::string_view> kinds;
  if (list.s_size()) kinds.push_back("string");
  if (list.i_size()) kinds.push_back("int");
  if (list.f_size()) kinds.push_back("float");
  if (list.b_size()) kinds.push_back("bool");
  if (list.type_size()) kinds.push_back("type");
  if (list.shape_size()) kinds.push_back("shape");
  if (list.tensor_size()) kinds.push_back("tensor");
  if (list.func_size()) kinds.push_back("func");
  return kinds;
}

int ListLength(const AttrValue::ListValue& list) {
  return list.s_size() + list.i_size() + list.f_size() + list.b_size() + list.type_size() + list.shape_size() +
         list.tensor_size() + list.func_size();
}

std::string AllowedTypesText(const AttrDef& def) {
  std::vector<std::string> names;
  for (DataType t : def.allowed_types) names.push_back(DataTypeName(t));
  return absl::StrJoin(names, ", ");
}

Status CheckDataType(const AttrDef& def, DataType dtype) {
  if (IsRefType(dtype))
    return errors::InvalidArgument("holds ", DataTypeName(dtype), ", a reference type, which an attr cannot hold");
  if (!def.allowed_types.empty() &&
      std::find(def.allowed_types.begin(), def.allowed_types.end(), dtype) == def.allowed_types.end())
    return errors::InvalidArgument("is ", DataTypeName(dtype),
                                   ", which is not in the list of allowed values: ", AllowedTypesText(def));
  return OkStatus();
}

Status CheckString(const AttrDef& def, const std::string& value) {
  if (!def.allowed_values.empty() &&
      std::find(def.allowed_values.begin(), def.allowed_values.end(), value) == def.allowed_values.end())
    return errors::InvalidArgument("is \"", value, "\", which is not in the list of allowed values: \"",
                                   absl::StrJoin(def.allowed_values, "\", \""), "\"");
  return OkStatus();
}

// Checks one attr value against its declaration. The message is a predicate ("has type int,
// expected bool") that callers prefix with the attr, node and op. An unset list becomes [].
Status CheckAttrValue(const AttrDef& def, AttrValue* value) {
  if (IsListType(def.type)) {
    if (value->value_case() == AttrValue::VALUE_NOT_SET) value->mutable_list();
    if (value->value_case() != AttrValue::kList)
      return errors::InvalidArgument("has type ", AttrCaseName(*value), ", expected ", def.type);
    const std::string element = def.type.substr(5, def.type.size() - 6);
    for (std::string_view kind : NonEmptyListFields(value->list()))
      if (kind != element) return errors::InvalidArgument("holds a list of ", kind, ", expected ", def.type);
    const int length = ListLength(value->list());
    if (def.has_minimum && length < def.minimum)
      return errors::InvalidArgument("has ", length, " element(s), fewer than the minimum ", def.minimum);
    for (int t : value->list().type()) CLAB_RETURN_IF_ERROR(CheckDataType(def, static_cast<DataType>(t)));
    for (const auto& s : value->list().s()) CLAB_RETURN_IF_ERROR(CheckString(def, s));
    return OkStatus();
  }
  if (AttrCaseName(*value) != def.type)
    return errors::InvalidArgument("has type ", AttrCaseName(*value), ", expected ", def.type);
  if (def.type == "type") return CheckDataType(def, value->type());
  if (def.type == "string") return CheckString(def, value->s());
  if (def.type == "int" && def.has_minimum && value->i() < def.minimum)
    return errors::InvalidArgument("is ", value->i(), ", less than the minimum ", def.minimum);
  return OkStatus();
}

std::string ArgSignature(const ArgDef& arg) {
  std::string type = arg.fixed_type != DT_INVALID ? DataTypeName(arg.fixed_type)
                     : !arg.type_attr.empty()     ? arg.type_attr
                                                  : arg.type_list_attr;
  if (!arg.number_attr.empty()) type = arg.number_attr + " * " + type;
  if (arg.is_ref) type = "Ref(" + type + ")";
  return arg.name + ": " + type;
}

// The types one arg of `node` stands for (several for "N * T" and type lists).
Status AppendArgTypes(const tensorflow::NodeDef& node, const ArgDef& arg, std::vector<DataType>* types) {
  std::vector<DataType> resolved;
  if (!arg.type_list_attr.empty()) {
    CLAB_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_list_attr, &resolved));
  } else {
    DataType dtype = arg.fixed_type;
    if (dtype == DT_INVALID) CLAB_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_attr, &dtype));
    int64_t count = 1;
    if (!arg.number_attr.empty()) {
      CLAB_RETURN_IF_ERROR(GetNodeAttr(node, arg.number_attr, &count));
      if (count < 0)
        return errors::InvalidArgument("Attr '", arg.number_attr, "' of node '", node.name(), "' is ", count,
                                       ", but it counts inputs and must not be negative");
      // A count from the graph sizes lists everywhere the node goes: refused before that.
      constexpr int64_t kMaxArgCount = int64_t{1} << 16;
      if (count > kMaxArgCount)
        return errors::InvalidArgument("Attr '", arg.number_attr, "' of node '", node.name(), "' is ", count,
                                       ", more than the ", kMaxArgCount, " tensors one input or output may stand for");
    }
    resolved.assign(static_cast<size_t>(count), dtype);
  }
  for (DataType t : resolved) types->push_back(arg.is_ref ? MakeRefType(t) : t);
  return OkStatus();
}

Status CheckInputCount(const OpDef& op, const tensorflow::NodeDef& node) {
  int data_inputs = 0;
  bool seen_control = false;
  for (const auto& input : node.input()) {
    if (!input.empty() && input[0] == '^') {
      seen_control = true;
      continue;
    }
    if (seen_control)
      return errors::InvalidArgument("Node '", node.name(), "' (op '", op.name, "') lists data input '", input,
                                     "' after a control input; control inputs must come last");
    ++data_inputs;
  }
  std::vector<DataType> inputs, outputs;
  CLAB_RETURN_IF_ERROR(InOutTypesForNode(node, op, &inputs, &outputs));
  if (static_cast<size_t>(data_inputs) != inputs.size()) {
    std::vector<std::string> signature;
    for (const auto& arg : op.inputs) signature.push_back(ArgSignature(arg));
    return errors::InvalidArgument("Node '", node.name(), "' (op '", op.name, "') has ", data_inputs,
                                   " data input(s), but the op expects ", inputs.size(), " (",
                                   absl::StrJoin(signature, ", "), ")");
  }
  return OkStatus();
}

// An input "x: T" names either a type attr or, once "T: list(type)" is declared, a type list.
void ResolveTypeListArgs(const AttrDef& attr, std::vector<ArgDef>* args) {
  if (attr.type != "list(type)") return;
  for (auto& arg : *args) {
    if (arg.type_attr == attr.name && arg.number_attr.empty()) {
      arg.type_list_attr = arg.type_attr;
      arg.type_attr.clear();
    }
  }
}

}  // namespace

const AttrDef* OpDef::FindAttr(std::string_view attr_name) const {
  for (const auto& attr : attrs)
    if (attr.name == attr_name) return &attr;
  return nullptr;
}

OpDefBuilder& OpDefBuilder::Input(std::string_view spec) {
  auto arg = ParseArgSpec(spec);
  if (!arg.ok()) DieOnBadRegistration(def_->name, std::string(arg.status().message()));
  for (const auto& existing : def_->inputs)
    if (existing.name == arg->name) DieOnBadRegistration(def_->name, "duplicate input '" + arg->name + "'");
  if (const AttrDef* attr = def_->FindAttr(arg->type_attr)) {
    std::vector<ArgDef> one{*arg};
    ResolveTypeListArgs(*attr, &one);
    *arg = one.front();
  }
  def_->inputs.push_back(std::move(arg).value());
  return *this;
}

OpDefBuilder& OpDefBuilder::Output(std::string_view spec) {
  auto arg = ParseArgSpec(spec);
  if (!arg.ok()) DieOnBadRegistration(def_->name, std::string(arg.status().message()));
  for (const auto& existing : def_->outputs)
    if (existing.name == arg->name) DieOnBadRegistration(def_->name, "duplicate output '" + arg->name + "'");
  if (const AttrDef* attr = def_->FindAttr(arg->type_attr)) {
    std::vector<ArgDef> one{*arg};
    ResolveTypeListArgs(*attr, &one);
    *arg = one.front();
  }
  def_->outputs.push_back(std::move(arg).value());
  return *this;
}

OpDefBuilder& OpDefBuilder::Attr(std::string_view spec) {
  auto attr = ParseAttrSpec(spec);
  if (!attr.ok()) DieOnBadRegistration(def_->name, std::string(attr.status().message()));
  if (def_->FindAttr(attr->name)) DieOnBadRegistration(def_->name, "duplicate attr '" + attr->name + "'");
  if (attr->default_value) {
    Status valid = CheckAttrValue(*attr, &*attr->default_value);
    if (!valid.ok())
      DieOnBadRegistration(def_->name, clab::StrCat("the default of attr '", attr->name, "' ", valid.message()));
  }
  ResolveTypeListArgs(*attr, &def_->inputs);
  ResolveTypeListArgs(*attr, &def_->outputs);
  def_->attrs.push_back(std::move(attr).value());
  return *this;
}

OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) {
  def_->shape_fn = std::move(fn);
  return *this;
}

OpDefBuilder& OpDefBuilder::Kernel(std::string_view device_type, KernelFactory factory) {
  auto [it, inserted] = def_->kernels.emplace(std::string(device_type), std::move(factory));
  if (!inserted) DieOnBadRegistration(def_->name, clab::StrCat("two kernels for device type ", device_type));
  return *this;
}

OpDefBuilder& OpDefBuilder::Gradient(GradientFn fn) {
  def_->gradient = std::move(fn);
  return *this;
}

OpDefBuilder& OpDefBuilder::Stateful() {
  def_->is_stateful = true;
  return *this;
}

OpDefBuilder& OpDefBuilder::Summary(std::string_view text) {
  def_->summary = std::string(text);
  return *this;
}

OpDefBuilder& OpDefBuilder::Group(std::string_view group) {
  def_->group = std::string(group);
  return *this;
}

Status ValidateOpDef(const OpDef& op) {
  auto check_args = [&](const std::vector<ArgDef>& args, std::string_view kind) -> Status {
    for (const auto& arg : args) {
      auto require = [&](const std::string& attr_name, std::string_view type) -> Status {
        const AttrDef* attr = op.FindAttr(attr_name);
        if (attr == nullptr)
          return errors::InvalidArgument("Op '", op.name, "' ", kind, " '", arg.name, "' refers to attr '", attr_name,
                                         "', which the op does not declare");
        if (attr->type != type)
          return errors::InvalidArgument("Op '", op.name, "' ", kind, " '", arg.name, "' needs attr '", attr_name,
                                         "' to be of type ", type, ", not ", attr->type);
        return OkStatus();
      };
      if (!arg.type_attr.empty()) CLAB_RETURN_IF_ERROR(require(arg.type_attr, "type"));
      if (!arg.type_list_attr.empty()) CLAB_RETURN_IF_ERROR(require(arg.type_list_attr, "list(type)"));
      if (!arg.number_attr.empty()) CLAB_RETURN_IF_ERROR(require(arg.number_attr, "int"));
      const int type_sources = (arg.fixed_type != DT_INVALID) + !arg.type_attr.empty() + !arg.type_list_attr.empty();
      if (type_sources != 1)
        return errors::InvalidArgument("Op '", op.name, "' ", kind, " '", arg.name, "' has no single type");
    }
    return OkStatus();
  };
  CLAB_RETURN_IF_ERROR(check_args(op.inputs, "input"));
  return check_args(op.outputs, "output");
}

namespace {

// The families that joined before the registry was built, and whether it has been.
struct PendingFamilies {
  std::mutex mu;
  std::vector<std::pair<std::string, OpFamily::RegisterFn>> families;
  bool registry_built = false;
};

PendingFamilies& Families() {
  static PendingFamilies* const families = new PendingFamilies;
  return *families;
}

void RegisterFamily(OpRegistry& registry, std::string_view name, OpFamily::RegisterFn register_ops) {
  register_ops(registry);
  for (const OpDef* op : registry.ListOps()) {
    Status valid = ValidateOpDef(*op);
    if (!valid.ok()) DieOnBadRegistration(op->name, clab::StrCat(valid.message(), " (family '", name, "')"));
  }
}

}  // namespace

OpFamily::OpFamily(std::string_view name, RegisterFn register_ops) {
  PendingFamilies& pending = Families();
  {
    std::lock_guard<std::mutex> lock(pending.mu);
    if (!pending.registry_built) {
      pending.families.emplace_back(std::string(name), register_ops);
      return;
    }
  }
  RegisterFamily(OpRegistry::Global(), name, register_ops);
}

OpRegistry& OpRegistry::Global() {
  // A function-local static: C++ guarantees one initialisation even when threads race here.
  static OpRegistry* const registry = [] {
    auto* r = new OpRegistry;
    PendingFamilies& pending = Families();
    std::vector<std::pair<std::string, OpFamily::RegisterFn>> families;
    {
      std::lock_guard<std::mutex> lock(pending.mu);
      pending.registry_built = true;
      families.swap(pending.families);
    }
    std::stable_sort(families.begin(), families.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [name, register_ops] : families) register_ops(*r);
    for (const auto& [name, op] : r->ops_) {
      Status valid = ValidateOpDef(*op);
      if (!valid.ok()) DieOnBadRegistration(name, std::string(valid.message()));
    }
    return r;
  }();
  return *registry;
}

OpDefBuilder OpRegistry::Register(std::string_view op_name) {
  const bool valid_name = !op_name.empty() &&
                          (std::isupper(static_cast<unsigned char>(op_name[0])) || op_name[0] == '_') &&
                          std::all_of(op_name.begin(), op_name.end(),
                                      [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  if (!valid_name) DieOnBadRegistration(op_name, "op names are CamelCase identifiers (or start with '_')");
  auto [it, inserted] = ops_.emplace(std::string(op_name), std::make_unique<OpDef>());
  if (!inserted) DieOnBadRegistration(op_name, "registered twice");
  it->second->name = std::string(op_name);
  return OpDefBuilder(it->second.get());
}

StatusOr<const OpDef*> OpRegistry::LookUp(std::string_view op_name) const {
  const OpDef* op = Find(op_name);
  if (op == nullptr) return errors::NotFound("Op type not registered '", op_name, "'");
  return op;
}

const OpDef* OpRegistry::Find(std::string_view op_name) const {
  auto it = ops_.find(op_name);
  return it == ops_.end() ? nullptr : it->second.get();
}

Status OpRegistry::AddKernel(std::string_view op_name, std::string_view device_type, KernelFactory factory) {
  auto it = ops_.find(op_name);
  if (it == ops_.end())
    return errors::NotFound("Cannot add a ", device_type, " kernel: op type not registered '", op_name, "'");
  auto [slot, inserted] = it->second->kernels.emplace(std::string(device_type), std::move(factory));
  if (!inserted) return errors::AlreadyExists("Op '", op_name, "' already has a kernel for device type ", device_type);
  return OkStatus();
}

std::vector<const OpDef*> OpRegistry::ListOps() const {
  std::vector<const OpDef*> ops;
  ops.reserve(ops_.size());
  for (const auto& [name, op] : ops_) ops.push_back(op.get());
  return ops;
}

Status AddDefaultsAndValidate(const OpDef& op, tensorflow::NodeDef* node) {
  const std::string where = clab::StrCat("node '", node->name(), "' (op '", op.name, "')");
  if (node->op() != op.name)
    return errors::InvalidArgument("Node '", node->name(), "' has op '", node->op(), "' but was checked against op '",
                                   op.name, "'");

  // Attrs the op does not declare are kept and ignored: TensorFlow adds attrs to its ops in
  // later versions (with defaults that keep the old behaviour), and graphs written by those
  // versions carry them.
  auto& attrs = *node->mutable_attr();
  for (const auto& def : op.attrs) {
    auto it = attrs.find(def.name);
    if (it == attrs.end()) {
      if (!def.default_value)
        return errors::InvalidArgument("Attr '", def.name, "' (", def.type, ") of ", where,
                                       " is missing and has no default");
      attrs[def.name] = *def.default_value;
      continue;
    }
    Status valid = CheckAttrValue(def, &it->second);
    if (!valid.ok()) return errors::InvalidArgument("Attr '", def.name, "' of ", where, " ", valid.message());
  }
  return CheckInputCount(op, *node);
}

Status InOutTypesForNode(const tensorflow::NodeDef& node, const OpDef& op, std::vector<DataType>* inputs,
                         std::vector<DataType>* outputs) {
  inputs->clear();
  outputs->clear();
  for (const auto& arg : op.inputs) CLAB_RETURN_IF_ERROR(AppendArgTypes(node, arg, inputs));
  for (const auto& arg : op.outputs) CLAB_RETURN_IF_ERROR(AppendArgTypes(node, arg, outputs));
  return OkStatus();
}

std::vector<std::string> UnregisteredOps(const tensorflow::GraphDef& graph) {
  const OpRegistry& registry = OpRegistry::Global();
  std::set<std::string> missing;
  for (const auto& node : graph.node())
    if (registry.Find(node.op()) == nullptr) missing.insert(node.op());
  return {missing.begin(), missing.end()};
}

}  // namespace clab
