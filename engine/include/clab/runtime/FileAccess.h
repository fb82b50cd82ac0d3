// Which files the graphs a task runs may read and write. A server's graphs come from its
// clients, so the ops that touch files (MinibatchDataset reading CSV or IDX, SaveV2,
// RestoreV2, MergeV2Checkpoints) may only reach paths inside the directories the task was
// started with (`clab server --data_dir D --checkpoint_dir C`): any other path, whether
// named outright, reached by "..", or through a symbolic link, is PERMISSION_DENIED naming
// the path and the allowed directories. A task started without --data_dir reads and writes
// inside its working directory (and its checkpoint directory, when it has one).
//
// A relative path resolves against the task's working directory, as it always has (a client
// and the tasks it started share one); the result must then lie in an allowed directory.
// Paths are compared in canonical form: symbolic links resolved for the part that exists,
// "." and ".." folded for the rest.
//
// A session in a program's own process (DirectSession) has no FileAccess: the program reads
// what its user may read.
#pragma once

#include "clab/core/Status.h"

#include <string>
#include <string_view>
#include <vector>

namespace clab {

class FileAccess {
 public:
  // The data directories and the checkpoint directory ("" : none), relative ones against the
  // working directory. Without a data directory the working directory is the data directory.
  static StatusOr<FileAccess> Create(const std::vector<std::string>& data_dirs, const std::string& checkpoint_dir = "");

  // The canonical form of `path` when it lies in an allowed directory; PERMISSION_DENIED
  // naming `what` ("the dataset file"), the path as given, where it leads, and the allowed
  // directories otherwise.
  StatusOr<std::string> Resolve(const std::string& path, std::string_view what) const;

  // The allowed directories, canonical.
  const std::vector<std::string>& roots() const { return roots_; }

 private:
  FileAccess(std::string base, std::vector<std::string> roots) : base_(std::move(base)), roots_(std::move(roots)) {}

  std::string base_;  // what relative paths resolve against
  std::vector<std::string> roots_;
};

}  // namespace clab
