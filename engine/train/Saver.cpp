#include "clab/train/Saver.h"

#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphKeys.h"
#include "clab/io/TensorBundle.h"
#include "clab/ops/Ops.h"
#include "clab/train/CheckpointState.h"

#include <filesystem>

namespace clab {

StatusOr<Saver> Saver::Build(GraphBuilder& graph, const SaverOptions& options) {
  Saver saver;
  saver.max_to_keep_ = options.max_to_keep;
  saver.variables_ = options.var_list.empty() ? graph.Collection(GraphKeys::kGlobalVariables) : options.var_list;
  auto scope = graph.WithNameScope(options.name);
  std::vector<Output> assigns;
  for (size_t i = 0; i < saver.variables_.size(); ++i) {
    const std::string& var = saver.variables_[i];
    const tensorflow::NodeDef* node = graph.FindNode(var);
    if (node == nullptr) return errors::NotFound("Saver: variable '", var, "' is not in the graph");
    DataType dtype;
    CLAB_RETURN_IF_ERROR(GetNodeAttr(*node, "dtype", &dtype));
    PartialShape shape;
    CLAB_RETURN_IF_ERROR(GetNodeAttr(*node, "shape", &shape));
    Output value = ops::Placeholder(graph, dtype, shape, StrCat("restore_", i));
    // The Assign joins the variable's colocation group, so the value travels to the variable's
    // task once and is written there.
    Output assign = ops::Assign(graph, Output(var), value, StrCat("Assign_", i));
    saver.dtypes_.push_back(dtype);
    saver.restore_placeholders_.push_back(value.name());
    assigns.push_back(assign.control());
  }
  saver.restore_op_ = ops::NoOp(graph, assigns, "restore_all").node();
  CLAB_RETURN_IF_ERROR(graph.status());
  return saver;
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
  std::error_code ec;
  std::filesystem::create_directories(dir.empty() ? "." : dir, ec);
  if (ec) return errors::Internal("Cannot create the checkpoint directory ", dir, ": ", ec.message());
  CLAB_RETURN_IF_ERROR(WriteTensorBundle(prefix, tensors));

  last_checkpoints_.erase(std::remove(last_checkpoints_.begin(), last_checkpoints_.end(), prefix),
                          last_checkpoints_.end());
  last_checkpoints_.push_back(prefix);
  std::vector<std::string> dropped;
  while (max_to_keep_ > 0 && static_cast<int>(last_checkpoints_.size()) > max_to_keep_) {
    dropped.push_back(last_checkpoints_.front());
    last_checkpoints_.erase(last_checkpoints_.begin());
  }
  tensorflow::CheckpointState state;
  state.set_model_checkpoint_path(prefix);
  for (const auto& p : last_checkpoints_) state.add_all_model_checkpoint_paths(p);
  CLAB_RETURN_IF_ERROR(WriteCheckpointState(dir.empty() ? "." : dir, state));
  // Old files go only after the state file no longer names them.
  for (const auto& old : dropped) {
    std::filesystem::remove(old + ".index", ec);
    std::filesystem::remove(BundleDataFile(old), ec);
  }
  return prefix;
}

Status Saver::Restore(Session& session, const std::string& prefix) {
  CLAB_ASSIGN_OR_RETURN(TensorBundleReader reader, TensorBundleReader::Open(prefix));
  FeedList feeds;
  for (size_t i = 0; i < variables_.size(); ++i) {
    if (!reader.Contains(variables_[i]))
      return errors::NotFound("Key ", variables_[i], " not found in checkpoint ", prefix,
                              ": the checkpoint was written for another graph");
    CLAB_ASSIGN_OR_RETURN(Tensor value, reader.Read(variables_[i]));
    if (value.dtype() != BaseType(dtypes_[i]))
      return errors::InvalidArgument("Checkpoint ", prefix, " holds '", variables_[i], "' as ",
                                     DataTypeName(value.dtype()), " but the variable is ", DataTypeName(dtypes_[i]));
    feeds.emplace_back(restore_placeholders_[i], std::move(value));
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
