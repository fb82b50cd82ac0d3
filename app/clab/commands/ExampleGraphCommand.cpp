#include "commands/ExampleGraphCommand.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "formats/GraphFileReader.h"
#include "graph/GraphProgram.h"
#include "seed/SeedProgram.h"

namespace clab::cli {

std::string ExampleGraphCommand::summary() const { return "Run one task of a cluster that runs a graph file"; }

std::string ExampleGraphCommand::description() const {
  return "Runs a GraphDef (.pbtxt or .pb, e.g. the studio's edited graph) on a cluster, one task\n"
         "per process, as the seed program runs its own graph. The ps task starts its server and\n"
         "joins it. A worker task starts its server, imports the graph (nodes placed on\n"
         "/job:worker/task:0 run on this worker's own task), and runs the --fetch tensors and\n"
         "nodes in a MonitoredTrainingSession on its own target with log_device_placement and\n"
         "StopAtStepHook(--last_step), printing the fetched tensors every --print_every steps.\n"
         "Worker 0 is the chief: it initialises or restores the variables.\n\n"
         "Without --fetch, a step runs the nodes nothing else consumes (not the initialiser or\n"
         "the saver). A graph without a global step gets one on the first ps, incremented with\n"
         "each step; a graph with its own must increment it (minimize(loss, global_step)), or\n"
         "--max_seconds ends the run.\n\n"
         "Without --cluster and TF_CONFIG the cluster is ps=127.0.0.1:2223;worker=127.0.0.1:2222.\n"
         "  clab example graph --graph examples/graphs/seed.pbtxt --job_name ps\n"
         "  clab example graph --graph examples/graphs/seed.pbtxt --job_name worker";
}

void ExampleGraphCommand::DeclareFlags(FlagParser& flags) {
  flags.AddString("graph", "FILE", "the GraphDef to run (.pbtxt or .pb)", &graph_path_,
                  FlagParser::Presence::kRequired);
  flags.AddStringList("fetch", "NAME", "a tensor or node to run in each step (default: guessed); repeatable",
                      &fetches_);
  flags.AddInt("print_every", "N", "print the fetched tensors every N steps", &print_every_, 1);
  task_flags_.Declare(flags, "stop the worker after S seconds");
}

Status ExampleGraphCommand::Run(std::ostream& out) {
  CLAB_ASSIGN_OR_RETURN(const examples::TaskProgramOptions task,
                        task_flags_.Resolve(examples::kSeedDefaultCluster, "example graph"));
  examples::GraphProgramOptions options;
  static_cast<examples::TaskProgramOptions&>(options) = task;
  // The ps reads the graph too: a bad file is reported by every task, not only the workers.
  CLAB_ASSIGN_OR_RETURN(options.graph, tools::GraphFileReader::ReadSupported(graph_path_));
  options.fetches = fetches_;
  options.print_every = print_every_;
  return RunGraphProgram(options, out);
}

}  // namespace clab::cli
