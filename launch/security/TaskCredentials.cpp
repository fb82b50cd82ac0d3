#include "launch/security/TaskCredentials.h"

#include "clab/distributed/ClusterAccess.h"
#include "launch/project/TextFile.h"

#include <absl/strings/str_cat.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace clab::launch {
namespace {

namespace fs = std::filesystem;

// Makes `dir` (and missing parents) and sets it to 0700; refuses a symbolic link there.
Status MakePrivateDir(const fs::path& dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) return errors::Unavailable("cannot make the directory ", dir.string(), ": ", error.message());
  struct stat info {};
  if (::lstat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return errors::FailedPrecondition(dir.string(),
                                      " is not a directory (a symbolic link?): refusing to put keys there");
  if (::chmod(dir.c_str(), 0700) != 0)
    return errors::Unavailable("cannot make ", dir.string(), " private (mode 0700): ", std::strerror(errno));
  return OkStatus();
}

}  // namespace

StatusOr<TaskCredentials> TaskCredentials::Find(const ProjectSecurity& security, const std::string& job, int index) {
  if (security.tls_dir.empty() || security.token_file.empty())
    return errors::FailedPrecondition("the project has no TLS folder and token (security.tls_dir, token_file)");
  TaskCredentials credentials;
  credentials.cert_name = TaskCertificateName(job, index);
  const std::string dir = security.tls_dir.back() == '/' ? security.tls_dir : security.tls_dir + "/";
  credentials.files = {{dir + "ca.crt", "ca.crt", false},
                       {dir + credentials.cert_name + ".crt", credentials.cert_name + ".crt", false},
                       {dir + credentials.cert_name + ".key", credentials.cert_name + ".key", true},
                       {security.token_file, kTokenName, true}};
  for (const File& file : credentials.files) {
    std::error_code error;
    if (!fs::is_regular_file(file.source, error))
      return errors::NotFound("security: ", file.source, " (",
                              file.name == kTokenName ? "the cluster token" : file.name, " for /job:", job,
                              "/task:", index, ") does not exist; `clab cert --out ", security.tls_dir,
                              " --project PROJECT` makes the certificates of every task of the project");
  }
  return credentials;
}

ProjectSecurity TaskCredentials::InDirectory(const ProjectSecurity& security, const std::string& dir) {
  ProjectSecurity staged = security;
  staged.tls_dir = dir;
  staged.token_file = absl::StrCat(dir, "/", kTokenName);
  return staged;
}

std::vector<std::string> TaskCredentials::Names() const {
  std::vector<std::string> names;
  for (const File& file : files) names.push_back(file.name);
  return names;
}

Status TaskCredentials::StageLocally(const std::string& dir) const {
  const fs::path target(dir);
  if (target.has_parent_path() && !fs::exists(target.parent_path())) {
    CLAB_RETURN_IF_ERROR(MakePrivateDir(target.parent_path()));
  }
  CLAB_RETURN_IF_ERROR(MakePrivateDir(target));
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(target, error)) fs::remove_all(entry.path(), error);
  for (const File& file : files) {
    CLAB_ASSIGN_OR_RETURN(const std::string text, ReadTextFile(file.source));
    CLAB_RETURN_IF_ERROR(WriteTextFile((target / file.name).string(), text, 0600));
  }
  return OkStatus();
}

}  // namespace clab::launch
