// The text "checkpoint" file of a checkpoint directory (TensorFlow's CheckpointState):
//   model_checkpoint_path: "/tmp/train/model.ckpt-2000"
//   all_model_checkpoint_paths: "/tmp/train/model.ckpt-1000"
//   all_model_checkpoint_paths: "/tmp/train/model.ckpt-2000"
// Written to a temporary file and renamed over, so readers never see half a file. As
// TensorFlow's Saver does, the paths of a relative directory are written relative to it
// ("model.ckpt-2000" in "train/checkpoint"), absolute ones as they are.
#pragma once

#include "clab/core/Status.h"
#include "tensorflow/tensor_bundle.pb.h"

#include <string>
#include <vector>

namespace clab {

// NOT_FOUND when `dir` has no state file; INVALID_ARGUMENT naming the file and line when it
// does not parse. Relative paths in the file are joined with `dir`; a path that already
// starts with `dir` (as older files wrote it) is taken as it is when only that form exists.
StatusOr<tensorflow::CheckpointState> ReadCheckpointState(const std::string& dir);
Status WriteCheckpointState(const std::string& dir, const tensorflow::CheckpointState& state);

// The newest checkpoint prefix of `dir` whose index file exists, or NOT_FOUND.
StatusOr<std::string> LatestCheckpoint(const std::string& dir);

// Every checkpoint the state file lists, newest first (for falling back past a corrupt one).
StatusOr<std::vector<std::string>> CheckpointsNewestFirst(const std::string& dir);

}  // namespace clab
