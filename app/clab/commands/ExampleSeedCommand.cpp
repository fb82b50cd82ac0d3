#include "commands/ExampleSeedCommand.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "seed/SeedProgram.h"

namespace clab::cli {

std::string ExampleSeedCommand::summary() const { return "Run one task of the seed program (ps or worker)"; }

std::string ExampleSeedCommand::description() const {
  return "The seed tutorial's program, one task per process. The ps task starts its server and\n"
         "joins it (until Ctrl-C or SIGTERM). The worker task starts its server, builds\n"
         "x = Variable([[1, 2, 3, 4]]), w = Variable([[2], [2], [2], [2]]) and MatMul(x, w) under\n"
         "replica_device_setter (variables on the ps, MatMul on the worker), and runs MatMul in a\n"
         "MonitoredTrainingSession on its own target with log_device_placement and\n"
         "StopAtStepHook(last_step=200), printing [[20]] once per step. Worker 0 is the chief: it\n"
         "initialises or restores the variables; other workers wait until the model is ready.\n\n"
         "The tutorial's graph never increments the global step, so as written it never stops:\n"
         "--faithful runs it exactly so, for --max_seconds (default 10). Without --faithful each\n"
         "step also increments the global step, and the worker stops at --last_step.\n\n"
         "Without --cluster and TF_CONFIG the cluster is ps=127.0.0.1:2223;worker=127.0.0.1:2222.\n"
         "In two terminals:\n"
         "  clab example seed --job_name ps\n"
         "  clab example seed --job_name worker";
}

void ExampleSeedCommand::DeclareFlags(FlagParser& flags) {
  flags.AddInt("wait_for_watcher_ms", "MS", "before starting, wait this long for a watcher of the task's events",
               &wait_for_watcher_ms_, 0);
  cluster_flags_.Declare(flags);
  flags.AddInt("last_step", "N", "StopAtStepHook's last_step", &last_step_, 0);
  flags.AddBool("faithful", "run exactly the tutorial's graph (no global step increment)", &faithful_);
  flags.AddInt("max_seconds", "S", "stop the worker after S seconds (faithful runs: 10 unless given)", &max_seconds_,
               0);
  flags.AddString("checkpoint_dir", "DIR", "where the chief writes checkpoints and event files", &checkpoint_dir_);
  flags.AddInt("save_checkpoint_steps", "N", "checkpoint every N steps (default: every 600 s)",
               &save_checkpoint_steps_, 0);
  flags.AddInt("wait_for_ps_ms", "MS", "how long the worker waits for the ps before giving up", &wait_for_ps_ms_,
               1);
}

Status ExampleSeedCommand::Run(std::ostream& out) {
  // Without --cluster and TF_CONFIG: the tutorial's cluster on this machine.
  CLAB_ASSIGN_OR_RETURN(const ClusterFlags::Task task, cluster_flags_.Resolve(examples::kSeedDefaultCluster));
  examples::SeedProgramOptions options;
  options.cluster = task.cluster;
  options.job_name = task.job_name;
  options.task_index = task.task_index;
  options.last_step = last_step_;
  options.faithful = faithful_;
  options.max_seconds = static_cast<double>(max_seconds_);
  options.checkpoint_dir = checkpoint_dir_;
  options.save_checkpoint_steps = save_checkpoint_steps_;
  options.wait_for_ps_ms = wait_for_ps_ms_;
  options.wait_for_watcher_ms = wait_for_watcher_ms_;
  if (options.job_name != "ps" && options.job_name != "worker")
    return UsageError("--job_name must be ps or worker (see 'clab help example seed')");
  return RunSeedProgram(options, out);
}

}  // namespace clab::cli
