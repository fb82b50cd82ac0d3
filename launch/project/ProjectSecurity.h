// Who may use a project's cluster: the project's "security" section, passed to every task
// it starts (the task flags --tls_dir, --token_file, --insecure_listen_all):
//
//   "security": {"tls_dir": "/etc/clusterlab/certs", "token_file": "/etc/clusterlab/certs/cluster.token",
//                "insecure_listen_all": false}
//
// The paths are on the machine that launches (`clab cert` makes the folder): a local run
// uses them as they are; ssh, SLURM and Kubernetes launches copy each task's own files to
// where it runs (TaskCredentials) and point its flags there. A project
// without the section runs unprotected tasks, which listen on loopback only unless
// insecure_listen_all is set.
#pragma once

#include "clab/core/Status.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace clab::launch {

struct ProjectSecurity {
  std::string tls_dir;
  std::string token_file;
  bool insecure_listen_all = false;

  // Errors name the member at fault below `where` ("security.tls_dir: ...").
  static StatusOr<ProjectSecurity> FromJson(const nlohmann::json& json, const std::string& where = "security");
  nlohmann::json ToJson() const;
  // The task command line's flags for these settings.
  std::vector<std::string> TaskFlags() const;
  bool IsDefault() const { return *this == ProjectSecurity(); }
  bool operator==(const ProjectSecurity&) const = default;
};

}  // namespace clab::launch
