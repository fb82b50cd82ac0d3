// One host as OpenSSH reaches it: the ssh and scp command lines for it, built from the
// host's settings (user, port) and what the person's own ssh setup says (~/.ssh/config,
// keys, agent; or a configuration file given with -F). Every connection runs in batch
// mode: ssh never asks for a password or a passphrase, and fails instead, saying why.
#pragma once

#include "launch/project/HostSettings.h"

#include <string>
#include <vector>

namespace clab::launch {

class SshTarget {
 public:
  // `ssh_config`: a file for -F ("" : ssh's own lookup); `connect_timeout_s`: how long a
  // connection attempt may take.
  SshTarget(std::string host, HostSettings settings, std::string ssh_config, int connect_timeout_s);

  const std::string& host() const { return host_; }
  const HostSettings& settings() const { return settings_; }
  // "ana@gpu1.lab:2222" (what was set), for messages.
  std::string Describe() const;

  // ssh's argv (program first) running `remote_command` through the remote login shell.
  std::vector<std::string> SshCommand(const std::string& remote_command) const;
  // scp's argv copying local `sources` into the remote directory `remote_dir`.
  std::vector<std::string> ScpCommand(const std::vector<std::string>& sources, const std::string& remote_dir) const;

 private:
  std::vector<std::string> CommonOptions() const;

  const std::string host_;
  const HostSettings settings_;
  const std::string ssh_config_;
  const int connect_timeout_s_;
};

}  // namespace clab::launch
