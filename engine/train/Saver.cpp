#include "clab/train/Saver.h"

#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphKeys.h"
#include "clab/io/TensorBundle.h"
#include "clab/ops/Ops.h"
#include "clab/train/CheckpointState.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

namespace clab {
namespace {

// Files of `base`'s checkpoints in `dir` that no checkpoint in `kept` claims: what a save
// cut short leaves (a bundle's temporary files, the state file's temporary file), a
// checkpoint written whose state file was never updated, one dropped from the list whose
// files were not deleted. One chief writes a directory, one save at a time, so when a save
// has just finished nothing else is in progress there.
void RemoveUnclaimedFiles(const std::string& dir, const std::string& base, const std::vector<std::string>& kept) {
  const std::string base_name = std::filesystem::path(base).filename().string();
  std::set<std::string> claimed;
  for (const std::string& prefix : kept) claimed.insert(std::filesystem::path(prefix).filename().string());
  // <base>-<step>.index or .data-00000-of-00001, perhaps with a bundle's temporary suffix.
  static const std::regex part(R"(-(\d+)(\.index|\.data-\d{5}-of-\d{5})(\.tempstate[0-9a-f]{16})?)");
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
  }
  RemoveUnclaimedFiles(state_dir, base, last_checkpoints_);
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
