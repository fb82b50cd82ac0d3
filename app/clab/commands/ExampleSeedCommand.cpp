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
         "replica_device_setter (variables on the ps, MatMul on the worker), opens a session on\n"
         "its own target with log_device_placement and prints [[20]] once per step. Worker 0 is\n"
         "the chief and initialises the variables; other workers wait for it.\n\n"
         "Without --cluster and TF_CONFIG the cluster is ps=127.0.0.1:2223;worker=127.0.0.1:2222.\n"
         "In two terminals:\n"
         "  clab example seed --job_name ps\n"
         "  clab example seed --job_name worker";
}

void ExampleSeedCommand::DeclareFlags(FlagParser& flags) {
  cluster_flags_.Declare(flags);
  flags.AddInt("steps", "N", "how many steps the worker runs", &steps_, 0);
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
  options.steps = steps_;
  options.wait_for_ps_ms = wait_for_ps_ms_;
  if (options.job_name != "ps" && options.job_name != "worker")
    return UsageError("--job_name must be ps or worker (see 'clab help example seed')");
  return RunSeedProgram(options, out);
}

}  // namespace clab::cli
