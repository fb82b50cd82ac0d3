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
  task_flags_.Declare(flags, "stop the worker after S seconds (faithful runs: 10 unless given)");
  flags.AddBool("faithful", "run exactly the tutorial's graph (no global step increment)", &faithful_);
}

Status ExampleSeedCommand::Run(std::ostream& out) {
  // Without --cluster and TF_CONFIG: the tutorial's cluster on this machine.
  CLAB_ASSIGN_OR_RETURN(const examples::TaskProgramOptions task,
                        task_flags_.Resolve(examples::kSeedDefaultCluster, "example seed"));
  examples::SeedProgramOptions options;
  static_cast<examples::TaskProgramOptions&>(options) = task;
  options.faithful = faithful_;
  return RunSeedProgram(options, out);
}

}  // namespace clab::cli
