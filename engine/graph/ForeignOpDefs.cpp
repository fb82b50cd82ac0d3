#include "clab/graph/ForeignOpDefs.h"

#include "clab/graph/AttrValues.h"

namespace clab {
namespace {

ArgDef ToArgDef(const tensorflow::OpDefProto::ArgDefProto& proto) {
  ArgDef arg;
  arg.name = proto.name();
  arg.fixed_type = static_cast<DataType>(proto.type());
  arg.type_attr = proto.type_attr();
  arg.number_attr = proto.number_attr();
  arg.type_list_attr = proto.type_list_attr();
  arg.is_ref = proto.is_ref();
  return arg;
}

AttrDef ToAttrDef(const tensorflow::OpDefProto::AttrDefProto& proto) {
  AttrDef attr;
  attr.name = proto.name();
  attr.type = proto.type();
  if (proto.has_default_value()) attr.default_value = proto.default_value();
  attr.has_minimum = proto.has_minimum();
  attr.minimum = proto.minimum();
  const auto& allowed = proto.allowed_values().list();
  for (int t : allowed.type()) attr.allowed_types.push_back(static_cast<DataType>(t));
  for (const std::string& s : allowed.s()) attr.allowed_values.push_back(s);
  return attr;
}

// The type a node's attrs give its outputs, as TensorFlow's ops name it most often.
DataType OutputTypeOf(const tensorflow::NodeDef& node) {
  for (const char* name : {"T", "dtype", "out_type", "Tout", "output_type"}) {
    auto it = node.attr().find(name);
    if (it != node.attr().end() && it->second.value_case() == tensorflow::AttrValue::kType)
      return static_cast<DataType>(it->second.type());
  }
  return DT_INVALID;
}

}  // namespace

Status ForeignOpDefs::Declare(const tensorflow::OpDefProto& proto) {
  if (proto.name().empty()) return errors::InvalidArgument("A declared op has no name");
  auto op = std::make_unique<OpDef>();
  op->name = proto.name();
  for (const auto& arg : proto.input_arg()) op->inputs.push_back(ToArgDef(arg));
  for (const auto& arg : proto.output_arg()) op->outputs.push_back(ToArgDef(arg));
  for (const auto& attr : proto.attr()) op->attrs.push_back(ToAttrDef(attr));
  op->is_stateful = proto.is_stateful();
  op->summary =
      proto.summary().empty() ? "Declared by the graph file; ClusterLab has no kernel for it" : proto.summary();
  op->group = "declared";
  if (Status valid = ValidateOpDef(*op); !valid.ok())
    return errors::InvalidArgument("The file's declaration of op '", proto.name(), "': ", valid.message());
  declared_[op->name] = std::move(op);
  return OkStatus();
}

const OpDef* ForeignOpDefs::FindDeclared(std::string_view op_name) const {
  auto it = declared_.find(op_name);
  return it == declared_.end() ? nullptr : it->second.get();
}

const OpDef* ForeignOpDefs::InferFromNode(const tensorflow::NodeDef& node, int num_outputs,
                                          std::vector<DataType>* input_types, std::vector<DataType>* output_types) {
  auto op = std::make_unique<OpDef>();
  op->name = node.op();
  op->summary = "Neither registered nor declared by the file; read off its nodes";
  op->group = "unknown";
  op->is_stateful = true;  // nothing is known about it: never fold or prune it away
  input_types->clear();
  for (const std::string& input : node.input())
    if (input.empty() || input[0] != '^') input_types->push_back(DT_INVALID);
  // Several outputs are often of different kinds (a handle and a flow): their types stay
  // unknown; a single output takes the type the node's attrs name.
  output_types->assign(static_cast<size_t>(num_outputs), num_outputs == 1 ? OutputTypeOf(node) : DT_INVALID);
  inferred_.push_back(std::move(op));
  return inferred_.back().get();
}

}  // namespace clab
