// Where and how a project's cluster runs beyond this machine: the launch method, the
// settings of each host, and the options of each method. A project keeps them in its
// "launch" section:
//
//   "launch": {"method": "ssh",
//              "hosts": {"198.18.0.2": {"user": "root", "binary": "/opt/clusterlab/bin/clab"},
//                        "*": {"data_dir": "/var/tmp/clusterlab"}},
//              "ssh": {...}, "slurm": {...}, "kubernetes": {...}}
//
// "method" is "local" (this machine, the studio's Run), "ssh", "slurm" or "kubernetes".
// A host without an entry of its own takes the "*" entry, if any. A project without the
// section (every project written before it existed) gets the defaults.
#pragma once

#include "clab/core/Status.h"
#include "launch/kubernetes/KubernetesOptions.h"
#include "launch/project/HostSettings.h"
#include "launch/slurm/SlurmOptions.h"
#include "launch/ssh/SshOptions.h"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <vector>

namespace clab::launch {

struct LaunchSettings {
  std::string method = "local";
  std::map<std::string, HostSettings> hosts;  // host name (or "*") -> settings
  SshOptions ssh;
  SlurmOptions slurm;
  KubernetesOptions kubernetes;

  static std::vector<std::string> Methods();  // local, ssh, slurm, kubernetes

  // The settings of `host`: its own entry, else the "*" entry, else the defaults.
  HostSettings ForHost(const std::string& host) const;

  // Errors name the member at fault below `where` ("launch.ssh.restart: ...").
  static StatusOr<LaunchSettings> FromJson(const nlohmann::json& json, const std::string& where = "launch");
  nlohmann::json ToJson() const;
  // Nothing set: a project saves no "launch" section then, so old files stay as they were.
  bool IsDefault() const { return *this == LaunchSettings(); }
  bool operator==(const LaunchSettings&) const = default;
};

}  // namespace clab::launch
