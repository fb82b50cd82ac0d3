#include "clab/runtime/FileAccess.h"

#include "clab/runtime/OpenBeneath.h"

#include <absl/strings/str_join.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>

namespace clab {
namespace {

namespace fs = std::filesystem;

// Symbolic links resolved where the path exists, "." and ".." folded for the rest.
StatusOr<fs::path> Canonical(const fs::path& path) {
  std::error_code error;
  fs::path canonical = fs::weakly_canonical(path, error);
  if (error) return errors::InvalidArgument("cannot resolve '", path.string(), "': ", error.message());
  return canonical.lexically_normal();
}

// True when `path` is `root` or lies below it (whole components compared).
bool IsWithin(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (r->empty()) continue;  // the trailing "" of "/a/b/"
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

}  // namespace

// The allowed directories' descriptors, opened on first use and shared by the copies.
struct FileAccess::RootDirs {
  std::mutex mu;
  std::vector<UniqueFd> fds;
};

FileAccess::FileAccess(std::string base, std::vector<std::string> roots)
    : base_(std::move(base)), roots_(std::move(roots)), root_dirs_(std::make_shared<RootDirs>()) {
  root_dirs_->fds.resize(roots_.size());
}

StatusOr<FileAccess> FileAccess::Create(const std::vector<std::string>& data_dirs, const std::string& checkpoint_dir) {
  std::error_code error;
  const fs::path cwd = fs::current_path(error);
  if (error) return errors::Internal("cannot read the working directory: ", error.message());
  std::vector<std::string> roots = data_dirs;
  for (const std::string& root : roots) {
    if (root.empty()) return errors::InvalidArgument("a data directory's name is empty");
  }
  if (roots.empty()) roots.push_back(cwd.string());
  if (!checkpoint_dir.empty()) roots.push_back(checkpoint_dir);
  std::vector<std::string> canonical_roots;
  for (const std::string& root : roots) {
    CLAB_ASSIGN_OR_RETURN(const fs::path canonical, Canonical(cwd / root));
    if (std::find(canonical_roots.begin(), canonical_roots.end(), canonical.string()) == canonical_roots.end())
      canonical_roots.push_back(canonical.string());
  }
  return FileAccess(cwd.string(), std::move(canonical_roots));
}

Status FileAccess::Denied(const std::string& path, const std::string& leads_to, std::string_view what,
                          std::string_view why) const {
  const std::string via = leads_to.empty() || leads_to == path ? "" : " (it leads to " + leads_to + ")";
  return errors::PermissionDenied(what, " '", path, "'", via, why,
                                  " is outside the directories this task may use: ", absl::StrJoin(roots_, ", "),
                                  " (start the task with --data_dir or --checkpoint_dir naming its directory)");
}

StatusOr<std::string> FileAccess::Resolve(const std::string& path, std::string_view what) const {
  CLAB_ASSIGN_OR_RETURN(const Located located, Locate(path, what));
  return located.canonical;
}

StatusOr<FileAccess::Located> FileAccess::Locate(const std::string& path, std::string_view what) const {
  if (path.empty()) return errors::InvalidArgument(what, " is empty");
  if (path.find('\0') != std::string::npos) return Denied(path, "", what);
  auto canonical = Canonical(fs::path(base_) / path);
  if (!canonical.ok()) return Denied(path, "", what);
  // The innermost allowed directory that holds it.
  std::optional<size_t> best;
  for (size_t i = 0; i < roots_.size(); ++i) {
    if (!IsWithin(*canonical, fs::path(roots_[i]))) continue;
    if (!best || roots_[i].size() > roots_[*best].size()) best = i;
  }
  if (!best) return Denied(path, canonical->string(), what);
  Located located;
  located.root = *best;
  located.canonical = canonical->string();
  located.relative = canonical->lexically_relative(fs::path(roots_[*best])).string();
  if (located.relative == ".") located.relative.clear();
  return located;
}

StatusOr<int> FileAccess::RootFd(size_t root, bool create) const {
  std::lock_guard<std::mutex> lock(root_dirs_->mu);
  UniqueFd& fd = root_dirs_->fds[root];
  struct stat info {};
  // A directory removed since (a checkpoint directory cleared by hand) is opened again.
  if (fd.valid() && (::fstat(fd.get(), &info) != 0 || info.st_nlink == 0)) fd.reset();
  if (!fd.valid()) {
    const std::string& dir = roots_[root];
    if (create) {
      std::error_code error;
      fs::create_directories(dir, error);
    }
    const int opened = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (opened < 0) return -errno;
    fd.reset(opened);
  }
  return fd.get();
}

Status FileAccess::OpenError(int error, const std::string& path, const std::string& canonical,
                             std::string_view what) const {
  switch (error) {
    case EXDEV:
    case ELOOP:
      return Denied(path, "", what, " (a symbolic link on its way leads out, or it changed while it was opened)");
    case ENOENT:
    case ENOTDIR: return errors::NotFound("cannot open ", what, " '", path, "': ", std::strerror(ENOENT));
    default:
      return errors::PermissionDenied("cannot open ", what, " '", path, "' (", canonical, "): ", std::strerror(error));
  }
}

StatusOr<UniqueFd> FileAccess::OpenForReading(const std::string& path, std::string_view what) const {
  CLAB_ASSIGN_OR_RETURN(const Located located, Locate(path, what));
  CLAB_ASSIGN_OR_RETURN(const int root, RootFd(located.root, false));
  if (root < 0) return OpenError(-root, path, located.canonical, what);
  // O_NONBLOCK: a FIFO put there must not hang the step; cleared once it is a plain file.
  const int fd = beneath::Open(root, located.relative, O_RDONLY | O_NONBLOCK);
  if (fd < 0) return OpenError(-fd, path, located.canonical, what);
  UniqueFd file(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
    return errors::InvalidArgument(what, " '", path, "' is not a regular file");
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return file;
}

StatusOr<FileInDirectory> FileAccess::OpenDirectoryOf(const std::string& path, std::string_view what,
                                                      bool create) const {
  CLAB_ASSIGN_OR_RETURN(const Located located, Locate(path, what));
  const fs::path relative(located.relative);
  if (located.relative.empty() || relative.filename().empty())
    return errors::InvalidArgument(what, " '", path, "' names an allowed directory itself, not a file in it");
  CLAB_ASSIGN_OR_RETURN(const int root, RootFd(located.root, create));
  if (root < 0) return OpenError(-root, path, located.canonical, what);
  const int dir = beneath::OpenDirectory(root, relative.parent_path().string(), create);
  if (dir < 0) return OpenError(-dir, path, located.canonical, what);
  FileInDirectory file;
  file.dir = std::make_shared<const UniqueFd>(dir);
  file.name = relative.filename().string();
  file.path = located.canonical;
  return file;
}

}  // namespace clab
