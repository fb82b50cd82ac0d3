#include "runtime/FunctionBodyGraph.h"

#include "clab/graph/OpRegistry.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>

#include <map>
#include <set>

namespace clab {
namespace {

using AttrMap = google::protobuf::Map<std::string, tensorflow::AttrValue>;

class BodyBuilder {
 public:
  BodyBuilder(const tensorflow::FunctionDef& function, const AttrMap& attrs)
      : function_(function), attrs_(attrs), name_(function.signature().name()) {}

  StatusOr<FunctionBodyGraph> Build(const tensorflow::FunctionDefLibrary& library) {
    FunctionBodyGraph body;
    for (const auto& arg : function_.signature().input_arg()) {
      CLAB_ASSIGN_OR_RETURN(DataType dtype, ArgType(arg, "input_arg"));
      if (!names_.insert(arg.name()).second) return Error("input_arg '", arg.name(), "' is declared twice");
      tensorflow::NodeDef* node = body.graph.add_node();
      node->set_name(arg.name());
      node->set_op("Placeholder");
      (*node->mutable_attr())["dtype"].set_type(dtype);
      body.feeds.push_back(arg.name() + ":0");
      body.arg_types.push_back(dtype);
    }
    // Attr placeholders first: the output counts of list outputs may depend on them.
    std::vector<tensorflow::NodeDef> nodes;
    for (const tensorflow::NodeDef& source : function_.node_def()) {
      if (!names_.insert(source.name()).second)
        return Error("node '", source.name(), "' has the name of another node or input_arg");
      tensorflow::NodeDef node = source;
      node.clear_device();
      for (auto& [attr_name, value] : *node.mutable_attr()) {
        if (value.value_case() != tensorflow::AttrValue::kPlaceholder) continue;
        auto it = attrs_.find(value.placeholder());
        if (it == attrs_.end())
          return Error("node '", node.name(), "' attr '", attr_name, "' is the placeholder $", value.placeholder(),
                       ", which the caller does not set");
        value = it->second;
      }
      nodes_[node.name()] = node;
      nodes.push_back(std::move(node));
    }
    for (tensorflow::NodeDef& node : nodes) {
      for (std::string& input : *node.mutable_input()) {
        if (!input.empty() && input[0] == '^') {
          if (!names_.count(input.substr(1)))
            return Error("node '", node.name(), "' has control input '", input, "', which names no node");
          continue;
        }
        CLAB_ASSIGN_OR_RETURN(input, TensorName(input, absl::StrCat("node '", node.name(), "' input")));
      }
      *body.graph.add_node() = std::move(node);
    }
    for (const auto& arg : function_.signature().output_arg()) {
      CLAB_ASSIGN_OR_RETURN(DataType dtype, ArgType(arg, "output_arg"));
      auto ret = function_.ret().find(arg.name());
      if (ret == function_.ret().end()) return Error("output_arg '", arg.name(), "' has no entry in ret");
      CLAB_ASSIGN_OR_RETURN(std::string fetch,
                            TensorName(ret->second, absl::StrCat("ret of output_arg '", arg.name(), "'")));
      body.fetches.push_back(std::move(fetch));
      body.ret_types.push_back(dtype);
    }
    for (const auto& [ret_name, node_name] : function_.control_ret()) {
      if (!nodes_.count(node_name))
        return Error("control_ret '", ret_name, "' names node '", node_name, "', which the body lacks");
      body.targets.push_back(node_name);
    }
    *body.graph.mutable_library() = library;
    return body;
  }

 private:
  template <typename... Args>
  Status Error(const Args&... args) const {
    return errors::InvalidArgument("Function '", name_, "': ", args...);
  }

  StatusOr<DataType> ArgType(const tensorflow::OpDefProto::ArgDefProto& arg, std::string_view kind) const {
    if (!arg.number_attr().empty() || !arg.type_list_attr().empty())
      return Error(kind, " '", arg.name(), "' is a list of tensors, which ClusterLab's functions do not take");
    if (arg.type() != tensorflow::DT_INVALID) return arg.type();
    auto it = attrs_.find(arg.type_attr());
    if (arg.type_attr().empty() || it == attrs_.end() || it->second.value_case() != tensorflow::AttrValue::kType)
      return Error(kind, " '", arg.name(), "' has type attr '", arg.type_attr(), "', which the caller does not set");
    return it->second.type();
  }

  // "x" (an input_arg) or "node:output_arg:index" -> "x:0" or "node:k".
  StatusOr<std::string> TensorName(const std::string& ref, const std::string& where) const {
    const std::vector<std::string> parts = absl::StrSplit(ref, ':');
    if (parts.size() == 1) {
      if (nodes_.count(ref) || !names_.count(ref))
        return Error(where, " '", ref, "' names no input_arg (a body node's output is written node:output_arg:index)");
      return ref + ":0";
    }
    int index = -1;
    if (parts.size() != 3 || !absl::SimpleAtoi(parts[2], &index) || index < 0)
      return Error(where, " '", ref, "' is not of the form node:output_arg:index");
    auto node = nodes_.find(parts[0]);
    if (node == nodes_.end()) return Error(where, " '", ref, "' names node '", parts[0], "', which the body lacks");
    const OpDef* op = OpRegistry::Global().Find(node->second.op());
    if (op == nullptr)
      return Error("node '", parts[0], "' has op '", node->second.op(), "', which ClusterLab does not have");
    int first = 0;
    std::vector<std::string> names;
    for (const ArgDef& arg : op->outputs) {
      CLAB_ASSIGN_OR_RETURN(int count, OutputCount(node->second, *op, arg));
      if (arg.name == parts[1]) {
        if (index >= count)
          return Error(where, " '", ref, "': output '", arg.name, "' of node '", parts[0], "' has ", count,
                       " tensor(s)");
        return absl::StrCat(parts[0], ":", first + index);
      }
      first += count;
      names.push_back(arg.name);
    }
    return Error(where, " '", ref, "': op '", op->name, "' of node '", parts[0], "' has no output '", parts[1],
                 "' (its outputs: ", absl::StrJoin(names, ", "), ")");
  }

  StatusOr<int> OutputCount(const tensorflow::NodeDef& node, const OpDef& op, const ArgDef& arg) const {
    const std::string& attr_name = !arg.number_attr.empty() ? arg.number_attr : arg.type_list_attr;
    if (attr_name.empty()) return 1;
    auto it = node.attr().find(attr_name);
    const tensorflow::AttrValue* value = it != node.attr().end() ? &it->second : nullptr;
    if (value == nullptr) {
      const AttrDef* def = op.FindAttr(attr_name);
      if (def != nullptr && def->default_value) value = &*def->default_value;
    }
    if (value == nullptr)
      return Error("node '", node.name(), "' lacks attr '", attr_name, "', which counts its output '", arg.name, "'");
    if (!arg.number_attr.empty()) return static_cast<int>(value->i());
    return value->list().type_size();
  }

  const tensorflow::FunctionDef& function_;
  const AttrMap& attrs_;
  const std::string name_;
  std::set<std::string> names_;
  std::map<std::string, tensorflow::NodeDef> nodes_;
};

}  // namespace

StatusOr<FunctionBodyGraph> BuildFunctionBodyGraph(const tensorflow::FunctionDef& function, const AttrMap& attrs,
                                                   const tensorflow::FunctionDefLibrary& library) {
  return BodyBuilder(function, attrs).Build(library);
}

}  // namespace clab
