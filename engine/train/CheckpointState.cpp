#include "clab/train/CheckpointState.h"

#include "clab/graph/TextProto.h"

#include <google/protobuf/text_format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace clab {
namespace {

bool IndexExists(const std::string& prefix) {
  std::error_code error;
  return std::filesystem::exists(prefix + ".index", error);
}

// A relative path in the state file is relative to `dir` (TensorFlow's rule, and what
// WriteCheckpointState writes). Files written before that rule named the path as given to the
// saver ("train/model.ckpt-200" in "train/checkpoint"): that form is read too, when it names
// a checkpoint that exists and the joined one does not.
std::string JoinWithDir(const std::string& dir, const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const std::string joined = (std::filesystem::path(dir) / path).string();
  if (!IndexExists(joined) && IndexExists(path)) return path;
  return joined;
}

// How TensorFlow's Saver writes the state of a relative directory: paths relative to it, so
// the file reads the same from any working directory.
std::string RelativeToDir(const std::string& dir, const std::string& path) {
  if (path.empty() || path[0] == '/' || (!dir.empty() && dir[0] == '/')) return path;
  const std::string relative = std::filesystem::path(path).lexically_relative(dir).string();
  return relative.empty() || relative.rfind("..", 0) == 0 ? path : relative;
}

}  // namespace

StatusOr<tensorflow::CheckpointState> ReadCheckpointState(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / "checkpoint").string();
  std::ifstream in(path);
  if (!in) return errors::NotFound("No checkpoint state file ", path);
  std::stringstream text;
  text << in.rdbuf();
  tensorflow::CheckpointState state;
  if (Status parsed = ParseTextProto(text.str(), path, &state); !parsed.ok())
    return errors::Annotate(parsed, "Checkpoint state file does not parse: ");
  state.set_model_checkpoint_path(JoinWithDir(dir, state.model_checkpoint_path()));
  for (auto& p : *state.mutable_all_model_checkpoint_paths()) p = JoinWithDir(dir, p);
  return state;
}

Status WriteCheckpointState(const std::string& dir, const tensorflow::CheckpointState& given) {
  tensorflow::CheckpointState state = given;
  state.set_model_checkpoint_path(RelativeToDir(dir, state.model_checkpoint_path()));
  for (auto& p : *state.mutable_all_model_checkpoint_paths()) p = RelativeToDir(dir, p);
  std::string text;
  google::protobuf::TextFormat::PrintToString(state, &text);
  const std::string path = (std::filesystem::path(dir) / "checkpoint").string();
  static thread_local std::mt19937_64 rng(std::random_device{}());
  const std::string tmp = StrCat(path, ".tmp", rng());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) return errors::Internal("Cannot write ", tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return errors::Internal("Cannot rename ", tmp, " to ", path);
  }
  return OkStatus();
}

StatusOr<std::vector<std::string>> CheckpointsNewestFirst(const std::string& dir) {
  CLAB_ASSIGN_OR_RETURN(tensorflow::CheckpointState state, ReadCheckpointState(dir));
  std::vector<std::string> out;
  if (!state.model_checkpoint_path().empty()) out.push_back(state.model_checkpoint_path());
  for (int i = state.all_model_checkpoint_paths_size() - 1; i >= 0; --i) {
    const std::string& p = state.all_model_checkpoint_paths(i);
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

StatusOr<std::string> LatestCheckpoint(const std::string& dir) {
  CLAB_ASSIGN_OR_RETURN(tensorflow::CheckpointState state, ReadCheckpointState(dir));
  const std::string& latest = state.model_checkpoint_path();
  if (latest.empty() || !std::filesystem::exists(latest + ".index"))
    return errors::NotFound("Couldn't match files for checkpoint ", latest.empty() ? dir : latest);
  return latest;
}

}  // namespace clab
