#include "clab/train/MetaGraphExport.h"

#include "clab/Version.h"
#include "clab/graph/GraphKeys.h"
#include "clab/graph/OpRegistry.h"

#include <absl/strings/match.h>

#include <set>

namespace clab {
namespace {

bool IsVariableCollection(const std::string& name) {
  static const std::set<std::string> kVariableCollections = {
      GraphKeys::kGlobalVariables, GraphKeys::kTrainableVariables, GraphKeys::kLocalVariables, GraphKeys::kGlobalStep,
      "model_variables",           "moving_average_variables"};
  return kVariableCollections.count(name) > 0;
}

std::string TensorName(const std::string& input) { return absl::StrContains(input, ':') ? input : input + ":0"; }

tensorflow::VariableDefProto VariableDefOf(const GraphBuilder& graph, const std::string& var,
                                           const std::set<std::string>& trainable) {
  tensorflow::VariableDefProto def;
  def.set_variable_name(TensorName(var));
  // The names MakeVariable gives: "<var>/Assign" initialises it from its initial value,
  // "<var>/read" is the snapshot the model reads. A variable made by hand has its
  // initializer elsewhere in its scope: the first Assign there that writes it.
  const tensorflow::NodeDef* initializer = graph.FindNode(var + "/Assign");
  if (initializer == nullptr || initializer->input_size() < 2 || initializer->input(0) != var) {
    initializer = nullptr;
    for (const tensorflow::NodeDef& node : graph.graph_def().node())
      if (node.op() == "Assign" && node.input_size() > 1 && node.input(0) == var &&
          absl::StartsWith(node.name(), var + "/")) {
        initializer = &node;
        break;
      }
  }
  if (initializer != nullptr) {
    def.set_initializer_name(initializer->name());
    def.set_initial_value_name(TensorName(initializer->input(1)));
  }
  if (graph.FindNode(var + "/read") != nullptr) def.set_snapshot_name(var + "/read:0");
  def.set_trainable(trainable.count(var) > 0);
  return def;
}

void ToArgProto(const ArgDef& arg, tensorflow::OpDefProto::ArgDefProto* proto) {
  proto->set_name(arg.name);
  if (arg.fixed_type != DT_INVALID) proto->set_type(arg.fixed_type);
  proto->set_type_attr(arg.type_attr);
  proto->set_number_attr(arg.number_attr);
  proto->set_type_list_attr(arg.type_list_attr);
  proto->set_is_ref(arg.is_ref);
}

// The declaration of an op the graph uses, as meta_info_def.stripped_op_list holds it.
tensorflow::OpDefProto ToOpDefProto(const OpDef& op) {
  tensorflow::OpDefProto proto;
  proto.set_name(op.name);
  for (const ArgDef& arg : op.inputs) ToArgProto(arg, proto.add_input_arg());
  for (const ArgDef& arg : op.outputs) ToArgProto(arg, proto.add_output_arg());
  for (const AttrDef& attr : op.attrs) {
    auto* a = proto.add_attr();
    a->set_name(attr.name);
    a->set_type(attr.type);
    if (attr.default_value) *a->mutable_default_value() = *attr.default_value;
    a->set_has_minimum(attr.has_minimum);
    a->set_minimum(attr.minimum);
    for (DataType t : attr.allowed_types) a->mutable_allowed_values()->mutable_list()->add_type(t);
    for (const std::string& v : attr.allowed_values) a->mutable_allowed_values()->mutable_list()->add_s(v);
  }
  proto.set_is_stateful(op.is_stateful);
  return proto;
}

}  // namespace

tensorflow::MetaGraphDef ExportMetaGraph(const GraphBuilder& graph, const tensorflow::SaverDef* saver_def) {
  tensorflow::MetaGraphDef meta;
  auto* info = meta.mutable_meta_info_def();
  info->set_tensorflow_version("1.15.0");
  info->set_tensorflow_git_version(StrCat("ClusterLab ", CLAB_VERSION));
  *meta.mutable_graph_def() = graph.graph_def();
  std::set<std::string> used_ops;
  for (const tensorflow::NodeDef& node : meta.graph_def().node()) used_ops.insert(node.op());
  for (const std::string& op_name : used_ops)
    if (const OpDef* op = OpRegistry::Global().Find(op_name); op != nullptr)
      *info->mutable_stripped_op_list()->add_op() = ToOpDefProto(*op);
  if (saver_def != nullptr) *meta.mutable_saver_def() = *saver_def;
  const std::vector<std::string>& trainable_list = graph.Collection(GraphKeys::kTrainableVariables);
  const std::set<std::string> trainable(trainable_list.begin(), trainable_list.end());
  for (const std::string& name : graph.CollectionNames()) {
    tensorflow::CollectionDef& collection = (*meta.mutable_collection_def())[name];
    for (const std::string& entry : graph.Collection(name)) {
      if (IsVariableCollection(name)) {
        collection.mutable_bytes_list()->add_value(VariableDefOf(graph, entry, trainable).SerializeAsString());
      } else if (name == GraphKeys::kQueueRunners) {  // already serialized QueueRunnerDefs
        collection.mutable_bytes_list()->add_value(entry);
      } else {
        collection.mutable_node_list()->add_value(entry);
      }
    }
  }
  return meta;
}

}  // namespace clab
