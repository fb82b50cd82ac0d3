#include "clab/train/Saver.h"

#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphKeys.h"
#include "clab/io/AtomicFile.h"
#include "clab/io/TensorBundle.h"
#include "clab/ops/Ops.h"
#include "clab/train/CheckpointState.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

namespace clab {
namespace {

Output StringConst(GraphBuilder& graph, const std::vector<std::string>& values, std::string_view name) {
  return ops::Const(graph, Tensor::Vector<std::string>(values), name);
}

// Files of `base`'s checkpoints in `dir` that no checkpoint in `kept` claims: what a save
// cut short leaves (a bundle's temporary files, the state file's temporary file), a
// checkpoint written whose state file was never updated, one dropped from the list whose
// files were not deleted. One chief writes a directory, one save at a time, so when a save
// has just finished nothing else is in progress there.
void RemoveUnclaimedFiles(const std::string& dir, const std::string& base, const std::vector<std::string>& kept) {
  const std::string base_name = std::filesystem::path(base).filename().string();
  std::set<std::string> claimed;
  for (const std::string& prefix : kept) claimed.insert(std::filesystem::path(prefix).filename().string());
  // <base>-<step>.index, .data-00000-of-00001 or .meta, perhaps with a bundle's or an
  // atomic write's temporary suffix.
  static const std::regex part(R"(-(\d+)(\.index|\.data-\d{5}-of-\d{5}|\.meta)(\.tempstate[0-9a-f]{16}|\.tmp\d+)?)");
  static const std::regex state_temp(R"(checkpoint\.tmp\d+)");
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    std::smatch match;
    bool unclaimed = std::regex_match(name, state_temp);
    if (!unclaimed && name.size() > base_name.size() && name.compare(0, base_name.size(), base_name) == 0) {
      const std::string rest = name.substr(base_name.size());
      if (std::regex_match(rest, match, part))
        unclaimed = match[3].matched || !claimed.count(StrCat(base_name, "-", match[1].str()));
    }
    if (unclaimed) std::filesystem::remove(entry.path(), ec);
  }
}

Status WriteState(const std::string& dir, const std::vector<std::string>& oldest_first) {
  tensorflow::CheckpointState state;
  if (!oldest_first.empty()) state.set_model_checkpoint_path(oldest_first.back());
  for (const auto& p : oldest_first) state.add_all_model_checkpoint_paths(p);
  return WriteCheckpointState(dir, state);
}

}  // namespace

StatusOr<Saver> Saver::Build(GraphBuilder& graph, const SaverOptions& options) {
  Saver saver;
  saver.max_to_keep_ = options.max_to_keep;
  saver.variables_ = options.var_list.empty() ? graph.Collection(GraphKeys::kGlobalVariables) : options.var_list;
  std::vector<Output> values;
  for (const std::string& var : saver.variables_) {
    const tensorflow::NodeDef* node = graph.FindNode(var);
    if (node == nullptr) return errors::NotFound("Saver: variable '", var, "' is not in the graph");
    DataType dtype;
    CLAB_RETURN_IF_ERROR(GetNodeAttr(*node, "dtype", &dtype));
    saver.dtypes_.push_back(dtype);
    values.emplace_back(var);
  }
  // The nodes tf.train.Saver adds, under the same names: the file name prefix, fed through
  // save/Const; SaveV2 writing every variable by name, with save/control_dependency as the
  // tensor to fetch; one RestoreV2 reading them all back and an Assign per variable, grouped
  // by save/restore_all. Shapes and slices are empty strings: whole tensors.
  auto scope = graph.WithNameScope(options.name);
  const std::vector<std::string> slices(saver.variables_.size(), "");
  Output filename_input = ops::Const(graph, Tensor::Scalar<std::string>("model"), "filename/input");
  std::map<std::string, tensorflow::AttrValue> scalar_string{{"dtype", AttrOf(DT_STRING)},
                                                             {"shape", AttrOf(PartialShape::Scalar())}};
  Output filename = graph.AddNode("PlaceholderWithDefault", {filename_input}, scalar_string, "filename");
  Output prefix = graph.AddNode("PlaceholderWithDefault", {filename}, scalar_string, "Const");
  Output save;
  {
    auto save_scope = graph.WithNameScope("SaveV2");
    std::vector<Output> inputs{prefix, StringConst(graph, saver.variables_, "tensor_names"),
                               StringConst(graph, slices, "shape_and_slices")};
    inputs.insert(inputs.end(), values.begin(), values.end());
    std::vector<DataType> base_types;
    for (DataType t : saver.dtypes_) base_types.push_back(BaseType(t));
    save = graph.AddNode("SaveV2", inputs, {{"dtypes", AttrOf(base_types)}}, graph.CurrentNameScope() + "/");
  }
  {
    auto colocated = graph.ColocateWith(prefix);
    auto after_save = graph.WithControlDependencies({save.control()});
    saver.save_tensor_ = ops::Identity(graph, prefix, "control_dependency").name();
  }
  saver.filename_tensor_ = prefix.name();
  std::vector<Output> assigns;
  if (!saver.variables_.empty()) {
    Output restore;
    {
      auto restore_scope = graph.WithNameScope("RestoreV2");
      std::vector<DataType> base_types;
      for (DataType t : saver.dtypes_) base_types.push_back(BaseType(t));
      restore = graph.AddNode("RestoreV2",
                              {prefix, StringConst(graph, saver.variables_, "tensor_names"),
                               StringConst(graph, slices, "shape_and_slices")},
                              {{"dtypes", AttrOf(base_types)}}, graph.CurrentNameScope() + "/");
    }
    for (size_t i = 0; i < saver.variables_.size(); ++i) {
      const Output restored(restore.node(), static_cast<int>(i));
      saver.restored_tensors_.push_back(restored.name());
      // The Assign joins the variable's colocation group, so the value travels to the
      // variable's task once and is written there.
      assigns.push_back(ops::Assign(graph, values[i], restored, "Assign").control());
    }
  }
  saver.restore_op_ = ops::NoOp(graph, assigns, "restore_all").node();
  CLAB_RETURN_IF_ERROR(graph.status());
  return saver;
}

tensorflow::SaverDef Saver::saver_def() const {
  tensorflow::SaverDef def;
  def.set_filename_tensor_name(filename_tensor_);
  def.set_save_tensor_name(save_tensor_);
  def.set_restore_op_name(restore_op_);
  def.set_max_to_keep(max_to_keep_);
  def.set_sharded(false);
  def.set_keep_checkpoint_every_n_hours(10000.0f);  // TensorFlow's default: never kept for age
  def.set_version(2);                               // SaverDef.V2: the .index/.data bundle
  return def;
}

void Saver::SetMetaGraph(tensorflow::MetaGraphDef meta_graph) {
  meta_graph_ = std::make_shared<const tensorflow::MetaGraphDef>(std::move(meta_graph));
}

StatusOr<std::string> Saver::Save(Session& session, const std::string& base, int64_t global_step) {
  std::vector<std::string> fetches;
  for (const auto& var : variables_) fetches.push_back(var + ":0");
  std::vector<Tensor> values;
  if (!fetches.empty()) CLAB_RETURN_IF_ERROR(session.Run({}, fetches, {}, &values));
  std::map<std::string, Tensor> tensors;
  for (size_t i = 0; i < variables_.size(); ++i) tensors.emplace(variables_[i], values[i]);

  const std::string prefix = StrCat(base, "-", global_step);
  const std::string dir = std::filesystem::path(prefix).parent_path().string();
  const std::string state_dir = dir.empty() ? "." : dir;
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  if (ec) return errors::Internal("Cannot create the checkpoint directory ", dir, ": ", ec.message());
  // Saved again under a name the state file lists: its two files are replaced one after the
  // other, so the name leaves the list first (while others remain), and no reader or restart
  // in between finds a listed checkpoint whose index and data disagree.
  auto listed = std::find(last_checkpoints_.begin(), last_checkpoints_.end(), prefix);
  if (listed != last_checkpoints_.end()) {
    last_checkpoints_.erase(listed);
    if (!last_checkpoints_.empty()) CLAB_RETURN_IF_ERROR(WriteState(state_dir, last_checkpoints_));
  }
  CLAB_RETURN_IF_ERROR(WriteTensorBundle(prefix, tensors));
  if (meta_graph_) CLAB_RETURN_IF_ERROR(WriteFileAtomically(prefix + ".meta", meta_graph_->SerializeAsString()));

  last_checkpoints_.push_back(prefix);
  std::vector<std::string> dropped;
  while (max_to_keep_ > 0 && static_cast<int>(last_checkpoints_.size()) > max_to_keep_) {
    dropped.push_back(last_checkpoints_.front());
    last_checkpoints_.erase(last_checkpoints_.begin());
  }
  CLAB_RETURN_IF_ERROR(WriteState(state_dir, last_checkpoints_));
  // Old files go only after the state file no longer names them; with them, whatever an
  // earlier save that was cut short (a killed chief) left behind.
  for (const auto& old : dropped) {
    std::filesystem::remove(old + ".index", ec);
    std::filesystem::remove(BundleDataFile(old), ec);
    std::filesystem::remove(old + ".meta", ec);
  }
  RemoveUnclaimedFiles(state_dir, base, last_checkpoints_);
  return prefix;
}

Status Saver::Restore(Session& session, const std::string& prefix) {
  CLAB_ASSIGN_OR_RETURN(TensorBundleReader reader, TensorBundleReader::Open(prefix));
  // The values are read here and fed as save/RestoreV2's outputs: the file is read where
  // the chief runs, whichever task the graph's RestoreV2 is placed on.
  FeedList feeds;
  for (size_t i = 0; i < variables_.size(); ++i) {
    if (!reader.Contains(variables_[i]))
      return errors::NotFound("Key ", variables_[i], " not found in checkpoint ", prefix,
                              ": the checkpoint was written for another graph");
    CLAB_ASSIGN_OR_RETURN(Tensor value, reader.Read(variables_[i]));
    if (value.dtype() != BaseType(dtypes_[i]))
      return errors::InvalidArgument("Checkpoint ", prefix, " holds '", variables_[i], "' as ",
                                     DataTypeName(value.dtype()), " but the variable is ", DataTypeName(dtypes_[i]));
    feeds.emplace_back(restored_tensors_[i], std::move(value));
  }
  std::vector<Tensor> unused;
  Status s = session.Run(feeds, {}, {restore_op_}, &unused);
  if (!s.ok()) return errors::Annotate(s, StrCat("Restoring from ", prefix, ": "));
  return OkStatus();
}

void Saver::RecoverLastCheckpoints(const std::vector<std::string>& newest_first) {
  last_checkpoints_.assign(newest_first.rbegin(), newest_first.rend());
}

}  // namespace clab
