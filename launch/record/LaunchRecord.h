// What a running launch leaves on disk so that another `clab launch PROJECT --stop` (or
// --status), or the studio, finds exactly its processes: for SSH the host, program and
// process id of every task; for SLURM the job id. One JSON file per project, under
// $XDG_STATE_HOME/clusterlab/launches (~/.local/state/... when unset), removed when the
// launch has ended.
#pragma once

#include "clab/core/Status.h"
#include "launch/project/HostSettings.h"

#include <string>
#include <vector>

namespace clab::launch {

struct LaunchRecord {
  struct Task {
    std::string name;  // "/job:ps/replica:0/task:0"
    std::string host;
    HostSettings ssh;    // how the host was reached (user, port)
    std::string binary;  // the program's path on the host
    std::string log;     // its log file there
    long pid = 0;        // 0: not running
  };

  std::string method;      // "ssh" or "slurm"
  std::string project;     // the project file's absolute path
  long launcher_pid = 0;   // the `clab launch` process that watches the tasks
  std::string ssh_config;  // the -F file of that launch ("" : none)
  std::string job_id;      // SLURM
  std::string work_dir;    // SLURM: the batch script and output
  std::vector<Task> tasks;

  // The record's file for a project (the project's absolute path picks it).
  static std::string PathFor(const std::string& project_path);
  // NOT_FOUND when no launch of the project is recorded.
  static StatusOr<LaunchRecord> Read(const std::string& project_path);
  Status Write() const;
  void Remove() const;
};

}  // namespace clab::launch
