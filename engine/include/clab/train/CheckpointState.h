// The text "checkpoint" file of a checkpoint directory (TensorFlow's CheckpointState):
//   model_checkpoint_path: "/tmp/train/model.ckpt-2000"
//   all_model_checkpoint_paths: "/tmp/train/model.ckpt-1000"
//   all_model_checkpoint_paths: "/tmp/train/model.ckpt-2000"
// Written to a temporary file and renamed over, so readers never see half a file.
#pragma once

#include "clab/core/Status.h"
#include "tensorflow/tensor_bundle.pb.h"

#include <string>
#include <vector>

namespace clab {

// NOT_FOUND when `dir` has no state file; INVALID_ARGUMENT naming the file and line when it
// does not parse. Relative paths in the file are joined with `dir`.
StatusOr<tensorflow::CheckpointState> ReadCheckpointState(const std::string& dir);
Status WriteCheckpointState(const std::string& dir, const tensorflow::CheckpointState& state);

// The newest checkpoint prefix of `dir` whose index file exists, or NOT_FOUND.
StatusOr<std::string> LatestCheckpoint(const std::string& dir);

// Every checkpoint the state file lists, newest first (for falling back past a corrupt one).
StatusOr<std::vector<std::string>> CheckpointsNewestFirst(const std::string& dir);

}  // namespace clab
