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
// The check and the use are one: the ops open what they touch through the allowed
// directory's file descriptor (OpenForReading, OpenDirectoryOf; see OpenBeneath.h), so a
// symbolic link swapped into the path between the check and the open leads nowhere; the
// readers and writers then work on that descriptor, never on the name again. The allowed
// directories are opened once, on first use, and held.
//
// A session in a program's own process (DirectSession) has no FileAccess: the program reads
// what its user may read.
#pragma once

#include "clab/core/FileInDirectory.h"
#include "clab/core/Status.h"
#include "clab/core/UniqueFd.h"

#include <memory>
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

  // The file at `path`, opened read-only below its allowed directory: a regular file, or
  // INVALID_ARGUMENT; NOT_FOUND when it is missing; PERMISSION_DENIED as Resolve() when it
  // lies outside, or when the path changed under the open to lead outside.
  StatusOr<UniqueFd> OpenForReading(const std::string& path, std::string_view what) const;
  // The directory that holds `path`, opened below its allowed directory (made, with the
  // directories between, when `create`), and the path's last component: where a writer
  // creates, renames and removes with the *at() calls. Errors as OpenForReading.
  StatusOr<FileInDirectory> OpenDirectoryOf(const std::string& path, std::string_view what, bool create) const;

  // The allowed directories, canonical.
  const std::vector<std::string>& roots() const { return roots_; }

 private:
  struct RootDirs;
  FileAccess(std::string base, std::vector<std::string> roots);

  // The allowed directory `path` lies in (its index) and the rest of the canonical path.
  struct Located {
    size_t root = 0;
    std::string relative;
    std::string canonical;
  };
  StatusOr<Located> Locate(const std::string& path, std::string_view what) const;
  StatusOr<int> RootFd(size_t root, bool create) const;
  Status OpenError(int error, const std::string& path, const std::string& canonical, std::string_view what) const;
  Status Denied(const std::string& path, const std::string& leads_to, std::string_view what,
                std::string_view why = {}) const;

  std::string base_;  // what relative paths resolve against
  std::vector<std::string> roots_;
  std::shared_ptr<RootDirs> root_dirs_;
};

}  // namespace clab
