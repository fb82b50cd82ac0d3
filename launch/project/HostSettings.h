// How ClusterLab reaches one host and where its files go there, as a project keeps it per
// host name ("hosts" of the project's "launch" section):
//
//   "gpu1.lab": {"user": "ana", "ssh_port": 2222, "binary": "/opt/clusterlab/bin/clab",
//                "data_dir": "/scratch/ana/clusterlab", "checkpoint_dir": "/scratch/ana/ckpt"}
//
// Every field may be left out; then ssh's own configuration (~/.ssh/config) decides the
// user and the port, the program is `clab` found on the host's PATH, and files go to
// "clusterlab" under the remote home directory. No password is ever kept: ssh logs in with
// the user's keys or agent.
#pragma once

#include "clab/core/Status.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace clab::launch {

struct HostSettings {
  std::string user;            // "" : ssh's default for the host
  int ssh_port = 0;            // 0 : ssh's default for the host
  std::string binary;          // "" : `clab` on the host's PATH
  std::string data_dir;        // "" : "clusterlab" in the remote home
  std::string checkpoint_dir;  // "" : the run's checkpoint directory, if any

  std::string BinaryOrDefault() const { return binary.empty() ? "clab" : binary; }
  std::string DataDirOrDefault() const { return data_dir.empty() ? "clusterlab" : data_dir; }

  // INVALID_ARGUMENT naming `where` and the field: "launch.hosts.gpu1: ssh_port: 70000 is
  // not a port (1-65535)".
  static StatusOr<HostSettings> FromJson(const nlohmann::json& json, const std::string& where);
  // Only the fields that are set.
  nlohmann::json ToJson() const;
  bool operator==(const HostSettings&) const = default;
};

}  // namespace clab::launch
