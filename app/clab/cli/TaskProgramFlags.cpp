#include "cli/TaskProgramFlags.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"

namespace clab::cli {

void TaskProgramFlags::Declare(FlagParser& flags, const char* max_seconds_help) {
  flags.AddInt("wait_for_watcher_ms", "MS", "before starting, wait this long for a watcher of the task's events",
               &wait_for_watcher_ms_, 0);
  cluster_flags_.Declare(flags);
  flags.AddInt("last_step", "N", "StopAtStepHook's last_step", &last_step_, 0);
  flags.AddInt("max_seconds", "S", max_seconds_help, &max_seconds_, 0);
  flags.AddString("checkpoint_dir", "DIR", "where the chief writes checkpoints and event files", &checkpoint_dir_);
  flags.AddStringList("data_dir", "DIR",
                      "a directory graphs on this task may read files in (repeatable; default: the working "
                      "directory); the checkpoint directory is allowed too",
                      &data_dirs_);
  flags.AddInt("save_checkpoint_steps", "N", "checkpoint every N steps (default: every 600 s)", &save_checkpoint_steps_,
               0);
  flags.AddInt("save_checkpoint_secs", "S", "checkpoint every S seconds (with --save_checkpoint_steps: steps win)",
               &save_checkpoint_secs_, 0);
  flags.AddString("on_damaged_checkpoint", "fail|previous",
                  "when the newest checkpoint is damaged or missing: restore the previous one (the default, with a "
                  "warning) or stop with DATA_LOSS as TensorFlow does",
                  &on_damaged_checkpoint_);
  flags.AddInt("wait_for_ps_ms", "MS", "how long the worker waits for the ps before giving up", &wait_for_ps_ms_, 1);
}

StatusOr<examples::TaskProgramOptions> TaskProgramFlags::Resolve(const std::string& default_cluster,
                                                                 const std::string& command) const {
  CLAB_ASSIGN_OR_RETURN(const ClusterFlags::Task task, cluster_flags_.Resolve(default_cluster));
  if (task.job_name != "ps" && task.job_name != "worker")
    return UsageError("--job_name must be ps or worker (see 'clab help " + command + "')");
  examples::TaskProgramOptions options;
  options.cluster = task.cluster;
  options.job_name = task.job_name;
  options.task_index = task.task_index;
  options.last_step = last_step_;
  options.max_seconds = static_cast<double>(max_seconds_);
  options.checkpoint_dir = checkpoint_dir_;
  options.data_dirs = data_dirs_;
  options.save_checkpoint_steps = save_checkpoint_steps_;
  options.save_checkpoint_secs = static_cast<double>(save_checkpoint_secs_);
  if (on_damaged_checkpoint_ != "previous" && on_damaged_checkpoint_ != "fail")
    return UsageError("--on_damaged_checkpoint must be fail or previous, not '" + on_damaged_checkpoint_ + "'");
  options.fail_on_damaged_checkpoint = on_damaged_checkpoint_ == "fail";
  options.wait_for_ps_ms = wait_for_ps_ms_;
  options.wait_for_watcher_ms = wait_for_watcher_ms_;
  return options;
}

}  // namespace clab::cli
