// Gets one host ready for a project's tasks, before any task starts: its data directory, a
// copy of this ClusterLab when asked (scp), the project's own graph when it has one, and a
// check that the ClusterLab program is there and runs. Each failure is said in words a
// person can act on, naming the host:
//   "cannot reach root@198.18.0.9 over ssh: ssh: connect to host 198.18.0.9 port 22: No route to host"
//   "no ClusterLab program '/opt/clab/bin/clab' on 198.18.0.2 (set launch.hosts.<host>.binary, or copy it with
//   --copy_binary)"
// A protected cluster's credentials go into a private directory per task (mode 0700, files
// 0600): the directories are made first, each task's own four files are copied into its
// own directory (scp), and the modes are set and checked.
#pragma once

#include "clab/core/Status.h"
#include "launch/security/TaskCredentials.h"
#include "launch/ssh/LocalInstallation.h"
#include "launch/ssh/SshTarget.h"

#include <chrono>
#include <map>
#include <string>

namespace clab::launch {

struct PreparedHost {
  std::string data_dir;     // absolute, on the host
  std::string binary;       // the program's path there
  std::string library_dir;  // for LD_LIBRARY_PATH ("" : none)
  std::string hostname;     // what the host calls itself
  std::string version;      // "ClusterLab 0.1.0"
  std::string graph_path;   // the project's graph there ("" : none)
  // Each task's private credential directory there, by certificate name ("worker-1").
  std::map<std::string, std::string> credential_dirs;
};

class SshHostSetup {
 public:
  struct What {
    const LocalInstallation* copy = nullptr;                       // copy this ClusterLab there (null: use the host's)
    std::string graph_file;                                        // a local file to put there ("" : none)
    std::chrono::milliseconds timeout{std::chrono::seconds(120)};  // for each command
    // The credentials of the host's tasks (a protected cluster), each copied into
    // DATA_DIR/tls/<credentials_dir>/<cert name>/ (see TaskCredentials, RemoteScript).
    std::vector<TaskCredentials> credentials;
    std::string credentials_dir;
  };

  static StatusOr<PreparedHost> Prepare(const SshTarget& target, const What& what);

  // The error for an ssh that ended with status 255 (ssh's own failure), with ssh's words.
  static Status Unreachable(const SshTarget& target, const std::string& ssh_output);
};

}  // namespace clab::launch
