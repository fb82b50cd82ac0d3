#include "commands/BenchTrainWorkerCommand.h"

#include "bench/TrainWorker.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"

namespace clab::cli {

std::string BenchTrainWorkerCommand::description() const {
  return "One worker of the ClusterLab runs of 'clab bench train', which starts it as a process of\n"
         "its own: it trains the digits MLP on its shard against the cluster's ps, starting when\n"
         "--go_file appears, and prints a RESULT-WORKER line with its timing and costs.";
}

void BenchTrainWorkerCommand::DeclareFlags(FlagParser& flags) {
  flags.AddString("cluster", "SPEC", "the cluster, 'ps=HOST:PORT;worker=HOST:PORT,...'", &cluster_);
  flags.AddInt("task_index", "N", "this worker's index", &task_index_, 0, 1000);
  flags.AddInt("steps", "N", "global steps of the whole cluster", &steps_, 1);
  flags.AddInt("hidden", "N", "units of the hidden layer", &hidden_, 1, 100000);
  flags.AddString("go_file", "PATH", "start training once this file exists", &go_file_);
}

Status BenchTrainWorkerCommand::Run(std::ostream& out) {
  if (cluster_.empty()) return UsageError("--cluster is needed");
  TrainWorkerOptions options;
  CLAB_ASSIGN_OR_RETURN(options.cluster, ClusterSpec::Parse(cluster_));
  options.task_index = static_cast<int>(task_index_);
  options.total_steps = steps_;
  options.hidden = static_cast<int>(hidden_);
  options.go_file = go_file_;
  return RunTrainWorker(options, out);
}

}  // namespace clab::cli
