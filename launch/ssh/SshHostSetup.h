// Gets one host ready for a project's tasks, before any task starts: its data directory, a
// copy of this ClusterLab when asked (scp), the project's own graph when it has one, and a
// check that the ClusterLab program is there and runs. Each failure is said in words a
// person can act on, naming the host:
//   "cannot reach root@198.18.0.9 over ssh: ssh: connect to host 198.18.0.9 port 22: No route to host"
//   "no ClusterLab program '/opt/clab/bin/clab' on 198.18.0.2 (set launch.hosts.<host>.binary, or copy it with
//   --copy_binary)"
#pragma once

#include "clab/core/Status.h"
#include "launch/ssh/LocalInstallation.h"
#include "launch/ssh/SshTarget.h"

#include <chrono>
#include <string>

namespace clab::launch {

struct PreparedHost {
  std::string data_dir;     // absolute, on the host
  std::string binary;       // the program's path there
  std::string library_dir;  // for LD_LIBRARY_PATH ("" : none)
  std::string hostname;     // what the host calls itself
  std::string version;      // "ClusterLab 0.1.0"
  std::string graph_path;   // the project's graph there ("" : none)
};

class SshHostSetup {
 public:
  struct What {
    const LocalInstallation* copy = nullptr;                       // copy this ClusterLab there (null: use the host's)
    std::string graph_file;                                        // a local file to put there ("" : none)
    std::chrono::milliseconds timeout{std::chrono::seconds(120)};  // for each command
  };

  static StatusOr<PreparedHost> Prepare(const SshTarget& target, const What& what);

  // The error for an ssh that ended with status 255 (ssh's own failure), with ssh's words.
  static Status Unreachable(const SshTarget& target, const std::string& ssh_output);
};

}  // namespace clab::launch
