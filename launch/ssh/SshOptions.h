// How a launch over SSH behaves (the "ssh" member of a project's "launch" section):
//
//   "ssh": {"copy_binary": true, "restart": "on-failure", "max_restarts": 3, "connect_timeout_s": 10,
//           "config": "/home/ana/lab/ssh_config"}
//
// copy_binary: scp this ClusterLab (the clab program, its engine library and the example
// data) to each host's data directory instead of using the one installed there. restart:
// "on-failure" starts a task again when its process dies with a failure (as a TFJob's
// OnFailure restart policy does), up to max_restarts times; "never" leaves it down.
// config: an ssh configuration file for these hosts (ssh -F); empty, ssh reads your own.
#pragma once

#include "clab/core/Status.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace clab::launch {

struct SshOptions {
  bool copy_binary = false;
  std::string restart = "on-failure";
  int max_restarts = 3;
  int connect_timeout_s = 10;
  std::string config;

  static StatusOr<SshOptions> FromJson(const nlohmann::json& json, const std::string& where);
  nlohmann::json ToJson() const;
  bool operator==(const SshOptions&) const = default;
};

}  // namespace clab::launch
