// The `clab` command line that runs one task of a project, wherever it runs (this machine,
// a host reached over SSH, a SLURM job step, a Kubernetes pod): a ps (any job but worker)
// runs `clab server`; a worker runs the project's program (`clab example seed`, `clab
// example train --model M`, or `clab example graph` on the project's own graph) with the
// run settings. The chief (worker 0) gets the checkpoint directory and the checkpoint interval.
#pragma once

#include "launch/project/ProjectFile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clab::launch {

struct TaskCommandOptions {
  // The cluster in the inline form; empty: the task reads the cluster and its own job and
  // index from TF_CONFIG (as in a Kubernetes pod), and `index` is not known.
  std::string cluster;
  std::string job;
  int index = 0;
  // Where the project's graph file is on the task's host (projects with a graph of their own).
  std::string graph_path;
  // The chief's checkpoint directory ("" : none). Without a known index every worker gets
  // it; only the chief writes there.
  std::string checkpoint_dir;
  // A worker waits this long for a watcher before it starts (the studio's, so that a
  // short run loses no event); 0: kWaitForPsWatchMs with until_workers_done, else no wait.
  int64_t wait_for_watcher_ms = 0;
  // A ps ends by itself once every worker has finished (`clab server --until_workers_done`):
  // a batch job or a pod then ends when training does. The workers then wait for a watcher
  // (the ps's) before they start, so that the ps sees even a worker done in a blink.
  bool until_workers_done = true;
  // The task's own security flags (its credentials where a launcher put them on its host,
  // see TaskCredentials); unset: the project's security section as it is.
  std::optional<ProjectSecurity> security;

  // How long workers wait for the ps's watch, and for the studio's when it runs them.
  static constexpr int64_t kWaitForPsWatchMs = 30000;
  static constexpr int64_t kWaitForStudioWatchMs = 10000;
};

// The arguments after the program name.
std::vector<std::string> TaskArguments(const ProjectFile& project, const TaskCommandOptions& options);

}  // namespace clab::launch
