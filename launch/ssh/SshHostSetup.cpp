#include "launch/ssh/SshHostSetup.h"

#include "launch/process/CommandRun.h"
#include "launch/ssh/RemoteScript.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/strip.h>

#include <filesystem>
#include <optional>

namespace clab::launch {
namespace {

constexpr int kSshFailed = 255;

// The value of the first "clab-launch: KEY ..." line, or nullopt.
std::optional<std::string> Marked(const CommandResult& result, const std::string& key) {
  const std::string prefix = absl::StrCat(RemoteScript::kMarker, key);
  for (const std::string& line : result.lines) {
    if (line == prefix) return std::string();
    if (absl::StartsWith(line, prefix + " ")) return line.substr(prefix.size() + 1);
  }
  return std::nullopt;
}

// What ssh itself said (its lines that are not the script's).
std::string SshWords(const CommandResult& result) {
  std::vector<std::string> words;
  for (const std::string& line : result.lines)
    if (!absl::StartsWith(line, RemoteScript::kMarker) && !line.empty()) words.push_back(line);
  return words.empty() ? absl::StrCat("ssh ended with status ", result.exit_status) : absl::StrJoin(words, "; ");
}

StatusOr<CommandResult> RunOnHost(const SshTarget& target, const std::string& script,
                                  std::chrono::milliseconds timeout) {
  CLAB_ASSIGN_OR_RETURN(CommandResult result, RunCommand(target.SshCommand(RemoteScript::AsCommand(script)), timeout));
  if (result.exit_status == kSshFailed) return SshHostSetup::Unreachable(target, SshWords(result));
  return result;
}

Status Copy(const SshTarget& target, const std::vector<std::string>& files, const std::string& remote_dir,
            std::chrono::milliseconds timeout) {
  CLAB_ASSIGN_OR_RETURN(const CommandResult result, RunCommand(target.ScpCommand(files, remote_dir), timeout));
  if (result.exit_status != 0)
    return errors::Unavailable("cannot copy ", files.size() == 1 ? files[0] : absl::StrCat(files.size(), " files"),
                               " to ", target.Describe(), ":", remote_dir, ": ", SshWords(result));
  return OkStatus();
}

}  // namespace

Status SshHostSetup::Unreachable(const SshTarget& target, const std::string& ssh_output) {
  return errors::Unavailable("cannot reach ", target.Describe(), " over ssh: ", ssh_output);
}

StatusOr<PreparedHost> SshHostSetup::Prepare(const SshTarget& target, const What& what) {
  PreparedHost host;
  CLAB_ASSIGN_OR_RETURN(const CommandResult setup,
                        RunOnHost(target, RemoteScript::Setup(target.settings().DataDirOrDefault()), what.timeout));
  if (auto dir = Marked(setup, "no-data-dir"))
    return errors::FailedPrecondition("cannot make the data directory '", *dir, "' on ", target.Describe(),
                                      " (set launch.hosts.", target.host(), ".data_dir)");
  auto data_dir = Marked(setup, "data-dir");
  if (!data_dir || data_dir->empty())
    return errors::Unavailable("the setup on ", target.Describe(), " said nothing: ", SshWords(setup));
  host.data_dir = *data_dir;

  host.binary = target.settings().BinaryOrDefault();
  if (what.copy != nullptr) {
    const std::string root = host.data_dir + "/clusterlab";
    CLAB_RETURN_IF_ERROR(Copy(target, {what.copy->program}, root + "/bin", what.timeout));
    CLAB_RETURN_IF_ERROR(Copy(target, {what.copy->engine_library}, root + "/lib", what.timeout));
    CLAB_RETURN_IF_ERROR(Copy(target, what.copy->data_files, root + "/share/clusterlab/data", what.timeout));
    host.binary = absl::StrCat(root, "/bin/", std::filesystem::path(what.copy->program).filename().string());
    host.library_dir = root + "/lib";
  }
  if (!what.graph_file.empty()) {
    CLAB_RETURN_IF_ERROR(Copy(target, {what.graph_file}, host.data_dir, what.timeout));
    host.graph_path = absl::StrCat(host.data_dir, "/", std::filesystem::path(what.graph_file).filename().string());
  }

  if (!what.credentials.empty()) {
    const std::string top = host.data_dir + "/tls";
    std::vector<std::string> dirs;
    for (const TaskCredentials& task : what.credentials) {
      dirs.push_back(absl::StrCat(top, "/", what.credentials_dir, "/", task.cert_name));
      host.credential_dirs[task.cert_name] = dirs.back();
    }
    CLAB_ASSIGN_OR_RETURN(const CommandResult made,
                          RunOnHost(target, RemoteScript::PrivateDirs(top, dirs), what.timeout));
    if (auto dir = Marked(made, "no-private-dir"))
      return errors::FailedPrecondition("cannot make the private directory '", *dir, "' for the task credentials on ",
                                        target.Describe());
    if (!Marked(made, "private-dirs-ready"))
      return errors::Unavailable("making the credential directories on ", target.Describe(),
                                 " said nothing: ", SshWords(made));
    for (size_t i = 0; i < what.credentials.size(); ++i) {
      // Files whose name stays go in one scp; another (the token) to its name there.
      std::vector<std::string> sources;
      for (const TaskCredentials::File& file : what.credentials[i].files) {
        if (std::filesystem::path(file.source).filename() == file.name) {
          sources.push_back(file.source);
        } else {
          CLAB_RETURN_IF_ERROR(Copy(target, {file.source}, dirs[i] + "/" + file.name, what.timeout));
        }
      }
      if (!sources.empty()) CLAB_RETURN_IF_ERROR(Copy(target, sources, dirs[i], what.timeout));
    }
    CLAB_ASSIGN_OR_RETURN(const CommandResult locked, RunOnHost(target, RemoteScript::LockFiles(dirs), what.timeout));
    if (auto file = Marked(locked, "not-locked"))
      return errors::FailedPrecondition("cannot make '", *file, "' on ", target.Describe(),
                                        " readable by its owner only (mode 0600)");
    if (!Marked(locked, "locked"))
      return errors::Unavailable("locking the credential files on ", target.Describe(),
                                 " said nothing: ", SshWords(locked));
  }

  CLAB_ASSIGN_OR_RETURN(const CommandResult check,
                        RunOnHost(target, RemoteScript::Check(host.binary, host.library_dir), what.timeout));
  if (auto missing = Marked(check, "no-binary"))
    return errors::FailedPrecondition("no ClusterLab program '", *missing, "' on ", target.Describe(),
                                      " (set launch.hosts.", target.host(), ".binary, or copy it with --copy_binary)");
  if (auto broken = Marked(check, "broken-binary"))
    return errors::FailedPrecondition("the ClusterLab program on ", target.Describe(), " does not run: ", *broken);
  auto ready = Marked(check, "ready");
  if (!ready) return errors::Unavailable("the check on ", target.Describe(), " said nothing: ", SshWords(check));
  // "PATH ClusterLab 0.1.0": the path has no spaces we did not put there ourselves.
  const size_t version_at = ready->find(" ClusterLab");
  host.binary = ready->substr(0, version_at);
  if (version_at != std::string::npos) host.version = ready->substr(version_at + 1);
  host.hostname = Marked(check, "host").value_or(target.host());
  return host;
}

}  // namespace clab::launch
