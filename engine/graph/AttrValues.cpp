#include "clab/graph/AttrValues.h"

#include <absl/strings/str_join.h>

#include <cstdio>
#include <limits>

namespace clab {
namespace {

using tensorflow::AttrValue;

StatusOr<const AttrValue*> FindAttr(const tensorflow::NodeDef& node, std::string_view name) {
  auto it = node.attr().find(std::string(name));
  if (it == node.attr().end()) return errors::NotFound("Node '", node.name(), "' has no attr '", name, "'");
  return &it->second;
}

Status WrongType(const tensorflow::NodeDef& node, std::string_view name, const AttrValue& value,
                 std::string_view expected) {
  return errors::InvalidArgument("Attr '", name, "' of node '", node.name(), "' has type ", AttrCaseName(value),
                                 ", expected ", expected);
}

// Fetches an attr that must hold `expected_case`.
StatusOr<const AttrValue*> FindTyped(const tensorflow::NodeDef& node, std::string_view name,
                                     AttrValue::ValueCase expected_case, std::string_view expected) {
  CLAB_ASSIGN_OR_RETURN(const AttrValue* value, FindAttr(node, name));
  if (value->value_case() != expected_case) return WrongType(node, name, *value, expected);
  return value;
}

// Lists: an attr with no value at all is the empty list, as TensorFlow's protos write one.
StatusOr<const AttrValue::ListValue*> FindList(const tensorflow::NodeDef& node, std::string_view name,
                                               std::string_view expected) {
  CLAB_ASSIGN_OR_RETURN(const AttrValue* value, FindAttr(node, name));
  if (value->value_case() == AttrValue::VALUE_NOT_SET) return &AttrValue::ListValue::default_instance();
  if (value->value_case() != AttrValue::kList) return WrongType(node, name, *value, expected);
  return &value->list();
}

std::string FloatText(float v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", static_cast<double>(v));
  return buf;
}

std::string ShapeText(const tensorflow::TensorShapeProto& shape) {
  return PartialShape::FromProto(shape).DebugString();
}

std::string TensorText(const tensorflow::TensorProto& proto) {
  auto tensor = Tensor::FromProto(proto);
  if (!tensor.ok()) return "<invalid tensor: " + std::string(tensor.status().message()) + ">";
  return tensor->SummarizeValue();
}

}  // namespace

Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, int64_t* value) {
  CLAB_ASSIGN_OR_RETURN(const AttrValue* attr, FindTyped(node, name, AttrValue::kI, "int"));
  *value = attr->i();
  return OkStatus();
}

Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, int32_t* value) {
  int64_t wide = 0;
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, name, &wide));
  if (wide < std::numeric_limits<int32_t>::min() || wide > std::numeric_limits<int32_t>::max())
    return errors::InvalidArgument("Attr '", name, "' of node '", node.name(), "' is ", wide,
                                   ", which does not fit in int32");
  *value = static_cast<int32_t>(wide);
  return OkStatus();
}

Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, float* value) {
  CLAB_ASSIGN_OR_RETURN(const AttrValue* attr, FindTyped(node, name, AttrValue::kF, "float"));
  *value = attr->f();
  return OkStatus();
}

Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, bool* value) {
  CLAB_ASSIGN_OR_RETURN(const AttrValue* attr, FindTyped(node, name, AttrValue::kB, "bool"));
  *value = attr->b();
  return OkStatus();
}

Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::string* value) {
  CLAB_ASSIGN_OR_RETURN(const AttrValue* attr, FindTyped(node, name, AttrValue::kS, "string"));
  *value = attr->s();
  return OkStatus();
}

Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, DataType* value) {
  CLAB_ASSIGN_OR_RETURN(const AttrValue* attr, FindTyped(node, name, AttrValue::kType, "type"));
  *value = attr->type();
  return OkStatus();
}

Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, PartialShape* value) {
  CLAB_ASSIGN_OR_RETURN(const AttrValue* attr, FindTyped(node, name, AttrValue::kShape, "shape"));
  *value = PartialShape::FromProto(attr->shape());
  return OkStatus();
}

Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, Tensor* value) {
  CLAB_ASSIGN_OR_RETURN(const AttrValue* attr, FindTyped(node, name, AttrValue::kTensor, "tensor"));
  auto tensor = Tensor::FromProto(attr->tensor());
  if (!tensor.ok())
    return errors::InvalidArgument("Attr '", name, "' of node '", node.name(),
                                   "' holds an invalid tensor: ", tensor.status().message());
  *value = std::move(tensor).value();
  return OkStatus();
}

Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::vector<int64_t>* value) {
  CLAB_ASSIGN_OR_RETURN(const AttrValue::ListValue* list, FindList(node, name, "list(int)"));
  value->assign(list->i().begin(), list->i().end());
  return OkStatus();
}

Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::vector<float>* value) {
  CLAB_ASSIGN_OR_RETURN(const AttrValue::ListValue* list, FindList(node, name, "list(float)"));
  value->assign(list->f().begin(), list->f().end());
  return OkStatus();
}

Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::vector<std::string>* value) {
  CLAB_ASSIGN_OR_RETURN(const AttrValue::ListValue* list, FindList(node, name, "list(string)"));
  value->assign(list->s().begin(), list->s().end());
  return OkStatus();
}

Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::vector<DataType>* value) {
  CLAB_ASSIGN_OR_RETURN(const AttrValue::ListValue* list, FindList(node, name, "list(type)"));
  value->clear();
  for (int t : list->type()) value->push_back(static_cast<DataType>(t));
  return OkStatus();
}

bool HasNodeAttr(const tensorflow::NodeDef& node, std::string_view name) {
  return node.attr().count(std::string(name)) > 0;
}

AttrValue AttrOf(int64_t v) {
  AttrValue a;
  a.set_i(v);
  return a;
}
AttrValue AttrOf(int v) { return AttrOf(static_cast<int64_t>(v)); }
AttrValue AttrOf(float v) {
  AttrValue a;
  a.set_f(v);
  return a;
}
AttrValue AttrOf(bool v) {
  AttrValue a;
  a.set_b(v);
  return a;
}
AttrValue AttrOf(std::string_view v) {
  AttrValue a;
  a.set_s(std::string(v));
  return a;
}
AttrValue AttrOf(const char* v) { return AttrOf(std::string_view(v)); }
AttrValue AttrOf(DataType v) {
  AttrValue a;
  a.set_type(v);
  return a;
}
AttrValue AttrOf(const PartialShape& v) {
  AttrValue a;
  v.AsProto(a.mutable_shape());
  return a;
}
AttrValue AttrOf(const TensorShape& v) { return AttrOf(PartialShape(v)); }
AttrValue AttrOf(const Tensor& v) {
  AttrValue a;
  v.AsProto(a.mutable_tensor());
  return a;
}
AttrValue AttrOf(const std::vector<int64_t>& v) {
  AttrValue a;
  auto* list = a.mutable_list();
  for (int64_t i : v) list->add_i(i);
  return a;
}
AttrValue AttrOf(const std::vector<std::string>& v) {
  AttrValue a;
  auto* list = a.mutable_list();
  for (const auto& s : v) list->add_s(s);
  return a;
}
AttrValue AttrOf(const std::vector<DataType>& v) {
  AttrValue a;
  auto* list = a.mutable_list();
  for (DataType t : v) list->add_type(t);
  return a;
}

std::string_view AttrCaseName(const AttrValue& value) {
  switch (value.value_case()) {
    case AttrValue::kS: return "string";
    case AttrValue::kI: return "int";
    case AttrValue::kF: return "float";
    case AttrValue::kB: return "bool";
    case AttrValue::kType: return "type";
    case AttrValue::kShape: return "shape";
    case AttrValue::kTensor: return "tensor";
    case AttrValue::kList: return "list";
    case AttrValue::kFunc: return "func";
    case AttrValue::kPlaceholder: return "placeholder";
    case AttrValue::VALUE_NOT_SET: return "no value";
  }
  return "unknown";
}

std::string AttrValueSummary(const AttrValue& value) {
  switch (value.value_case()) {
    case AttrValue::kS: return clab::StrCat("\"", value.s(), "\"");
    case AttrValue::kI: return clab::StrCat(value.i());
    case AttrValue::kF: return FloatText(value.f());
    case AttrValue::kB: return value.b() ? "true" : "false";
    case AttrValue::kType: return DataTypeName(value.type());
    case AttrValue::kShape: return ShapeText(value.shape());
    case AttrValue::kTensor: return TensorText(value.tensor());
    case AttrValue::kFunc: return value.func().name();
    case AttrValue::kPlaceholder: return clab::StrCat("$", value.placeholder());
    case AttrValue::VALUE_NOT_SET: return "<no value>";
    case AttrValue::kList: break;
  }
  const auto& list = value.list();
  std::vector<std::string> parts;
  for (const auto& s : list.s()) parts.push_back(clab::StrCat("\"", s, "\""));
  for (int64_t i : list.i()) parts.push_back(clab::StrCat(i));
  for (float f : list.f()) parts.push_back(FloatText(f));
  for (bool b : list.b()) parts.push_back(b ? "true" : "false");
  for (int t : list.type()) parts.push_back(DataTypeName(static_cast<DataType>(t)));
  for (const auto& s : list.shape()) parts.push_back(ShapeText(s));
  for (const auto& t : list.tensor()) parts.push_back(TensorText(t));
  for (const auto& f : list.func()) parts.push_back(f.name());
  return clab::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

}  // namespace clab
