// The flags every example program's task takes (`clab example seed`, `clab example graph`):
// the cluster and this task, StopAtStepHook's last step, a time limit, checkpoints, and how
// long to wait for the ps and for the studio's watcher.
#pragma once

#include "cli/ClusterFlags.h"
#include "seed/TaskProgram.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clab::cli {

class FlagParser;

class TaskProgramFlags {
 public:
  explicit TaskProgramFlags(int64_t default_last_step = 200) : last_step_(default_last_step) {}
  // `max_seconds_help` says what the limit is when it is not given.
  void Declare(FlagParser& flags, const char* max_seconds_help);
  // The options from the flags (cluster and task from --cluster, TF_CONFIG or
  // `default_cluster`); INVALID_ARGUMENT for a job other than ps or worker.
  StatusOr<examples::TaskProgramOptions> Resolve(const std::string& default_cluster, const std::string& command) const;

 private:
  ClusterFlags cluster_flags_;
  int64_t last_step_;
  int64_t max_seconds_ = 0;
  std::string checkpoint_dir_;
  std::vector<std::string> data_dirs_;
  int64_t save_checkpoint_steps_ = 0;
  int64_t save_checkpoint_secs_ = 0;
  std::string on_damaged_checkpoint_ = "previous";
  int64_t wait_for_ps_ms_ = 60000;
  int64_t wait_for_watcher_ms_ = 0;
};

}  // namespace clab::cli
