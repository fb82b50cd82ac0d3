#include "clab/runtime/FileAccess.h"

#include <absl/strings/str_join.h>

#include <algorithm>
#include <filesystem>

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

StatusOr<std::string> FileAccess::Resolve(const std::string& path, std::string_view what) const {
  auto denied = [&](const std::string& leads_to) {
    const std::string via = leads_to.empty() || leads_to == path ? "" : " (it leads to " + leads_to + ")";
    return errors::PermissionDenied(what, " '", path, "'", via,
                                    " is outside the directories this task may use: ", absl::StrJoin(roots_, ", "),
                                    " (start the task with --data_dir or --checkpoint_dir naming its directory)");
  };
  if (path.empty()) return errors::InvalidArgument(what, " is empty");
  if (path.find('\0') != std::string::npos) return denied("");
  auto canonical = Canonical(fs::path(base_) / path);
  if (!canonical.ok()) return denied("");
  for (const std::string& root : roots_) {
    if (IsWithin(*canonical, fs::path(root))) return canonical->string();
  }
  return denied(canonical->string());
}

}  // namespace clab
