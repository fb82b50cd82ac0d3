#include "launch/ssh/SshTarget.h"

#include <absl/strings/str_cat.h>

namespace clab::launch {

SshTarget::SshTarget(std::string host, HostSettings settings, std::string ssh_config, int connect_timeout_s)
    : host_(std::move(host)), settings_(std::move(settings)), ssh_config_(std::move(ssh_config)),
      connect_timeout_s_(connect_timeout_s) {}

std::string SshTarget::Describe() const {
  std::string text = settings_.user.empty() ? host_ : absl::StrCat(settings_.user, "@", host_);
  if (settings_.ssh_port != 0) absl::StrAppend(&text, ":", settings_.ssh_port);
  return text;
}

std::vector<std::string> SshTarget::CommonOptions() const {
  std::vector<std::string> options;
  if (!ssh_config_.empty()) options.insert(options.end(), {"-F", ssh_config_});
  options.insert(options.end(), {"-o", "BatchMode=yes", "-o", absl::StrCat("ConnectTimeout=", connect_timeout_s_),
                                 // A dead host or a cut link ends the connection instead of hanging it.
                                 "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3",
                                 // Never become a connection master: a master kept in the
                                 // background (ControlPersist) would hold the output open.
                                 // A master the person started is still used.
                                 "-o", "ControlMaster=no"});
  if (!settings_.user.empty()) options.insert(options.end(), {"-o", absl::StrCat("User=", settings_.user)});
  return options;
}

std::vector<std::string> SshTarget::SshCommand(const std::string& remote_command) const {
  std::vector<std::string> argv{"ssh", "-T"};
  for (std::string& option : CommonOptions()) argv.push_back(std::move(option));
  if (settings_.ssh_port != 0) argv.insert(argv.end(), {"-p", std::to_string(settings_.ssh_port)});
  argv.insert(argv.end(), {"--", host_, remote_command});
  return argv;
}

std::vector<std::string> SshTarget::ScpCommand(const std::vector<std::string>& sources,
                                               const std::string& remote_dir) const {
  std::vector<std::string> argv{"scp", "-q", "-p"};
  for (std::string& option : CommonOptions()) argv.push_back(std::move(option));
  if (settings_.ssh_port != 0) argv.insert(argv.end(), {"-P", std::to_string(settings_.ssh_port)});
  argv.push_back("--");
  argv.insert(argv.end(), sources.begin(), sources.end());
  // An IPv6 address needs brackets where scp expects host:path.
  const std::string host = host_.find(':') != std::string::npos ? absl::StrCat("[", host_, "]") : host_;
  argv.push_back(absl::StrCat(host, ":", remote_dir, "/"));
  return argv;
}

}  // namespace clab::launch
