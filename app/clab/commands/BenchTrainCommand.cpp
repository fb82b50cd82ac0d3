#include "commands/BenchTrainCommand.h"

#include "clab/distributed/Server.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "exampledata/ExampleDataPath.h"
#include "launch/process/ChildProcess.h"
#include "models/ClusterTraining.h"
#include "network/LoopbackPorts.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

#include <ostream>

namespace clab::cli {

using launch::ChildProcess;
namespace {

// A PyTorch RPC parameter server with the same model, measured on this kind of machine:
// steps per second with one worker and in total with two.
double ReferenceStepsPerSecond(int workers) { return workers == 1 ? 960 : workers == 2 ? 1300 : 0; }

}  // namespace

std::string BenchTrainCommand::description() const {
  return "Trains the digits MLP (64-128-10, ReLU, softmax cross-entropy, minibatches of 32, plain\n"
         "gradient descent at 0.1) on resources/data/digits.csv.gz for --steps global steps,\n"
         "asynchronously, with one ps process ('clab server') and 1, 2 and 4 workers (their\n"
         "servers and sessions in this process, each on its own shard), over loopback gRPC.\n"
         "Prints steps/s and examples/s of the whole cluster and the held-out accuracy, beside the\n"
         "same training in one process without any RPC (the floor), the share of each run that\n"
         "those steps take without RPC (compute; the rest is transfer and coordination), and a\n"
         "PyTorch RPC parameter server measured on this kind of machine (960 steps/s with one\n"
         "worker, 1,300 in total with two).";
}

void BenchTrainCommand::DeclareFlags(FlagParser& flags) {
  flags.AddStringList("workers", "N", "a number of workers to measure (default: 1, 2 and 4)", &workers_);
  flags.AddInt("steps", "N", "global steps per measurement", &steps_, 1);
  flags.AddInt("hidden", "N", "units of the hidden layer", &hidden_, 1);
}

Status BenchTrainCommand::Run(std::ostream& out) {
  std::vector<int> counts;
  for (const std::string& text : workers_) {
    int n = 0;
    if (!absl::SimpleAtoi(text, &n) || n < 1 || n > 16) return UsageError("--workers '" + text + "': want 1 to 16");
    counts.push_back(n);
  }
  if (counts.empty()) counts = {1, 2, 4};
  CLAB_ASSIGN_OR_RETURN(const examples::ClassificationData data,
                        examples::LoadClassificationCsv(tools::ExampleDataPath("digits.csv.gz")));
  out << "Digits MLP 64-" << hidden_ << "-10, batch 32, SGD 0.1, " << steps_
      << " global steps, asynchronous; 1 ps process, workers in this process." << std::endl;
  std::string table = absl::StrFormat("\n%-8s %9s %10s %12s %10s %9s %14s %8s\n", "workers", "seconds", "steps/s",
                                      "examples/s", "accuracy", "compute", "PyTorch RPC", "ratio");
  double local_seconds = 0;
  // The floor: the same model and steps in one process, no RPC at all.
  {
    GraphBuilder g;
    CLAB_ASSIGN_OR_RETURN(
        const tools::ClassifierGraph model,
        tools::BuildClassifier(g, data.num_features, {static_cast<int>(hidden_)}, data.num_classes, 0.1, 7));
    const Output init = ops::GlobalVariablesInitializer(g);
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(SessionOptions()));
    CLAB_RETURN_IF_ERROR(session->Create(g.graph_def()));
    std::vector<Tensor> unused;
    CLAB_RETURN_IF_ERROR(session->Run({}, {}, {init.node()}, &unused));
    const auto start = std::chrono::steady_clock::now();
    CLAB_RETURN_IF_ERROR(examples::Train(*session, model, data.train, steps_, 32, 107).status());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CLAB_ASSIGN_OR_RETURN(const double accuracy, examples::Accuracy(*session, model, data.held_out));
    const double rate = static_cast<double>(steps_) / seconds;
    out << "  in one process, no RPC: " << absl::StrFormat("%.0f steps/s, accuracy %.3f", rate, accuracy) << std::endl;
    table += absl::StrFormat("%-8s %9.2f %10.0f %12.0f %10.3f %9s %14s %8s\n", "local", seconds, rate, rate * 32,
                             accuracy, "100%", "-", "-");
    local_seconds = seconds;
  }
  for (int workers : counts) {
    CLAB_ASSIGN_OR_RETURN(const std::vector<int> ports, tools::PickFreeLoopbackPorts(workers + 1));
    std::map<std::string, std::vector<std::string>> jobs;
    jobs["ps"] = {absl::StrCat("127.0.0.1:", ports[0])};
    for (int i = 0; i < workers; ++i)
      jobs["worker"].push_back(absl::StrCat("127.0.0.1:", ports[static_cast<size_t>(i) + 1]));
    CLAB_ASSIGN_OR_RETURN(ClusterSpec cluster, ClusterSpec::FromDict(jobs));
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<ChildProcess> ps,
                          ChildProcess::Start(ChildProcess::SelfPath(),
                                              {"server", "--cluster", cluster.ToInline(), "--job_name", "ps"}, {}));
    if (!ps->WaitForLine("Serving /job:", std::chrono::seconds(20)))
      return errors::Unavailable("the ps process did not start");
    std::vector<std::unique_ptr<Server>> servers;
    examples::ClusterTrainingOptions options;
    options.cluster = jobs;
    options.hidden = {static_cast<int>(hidden_)};
    options.total_steps = steps_;
    for (int i = 0; i < workers; ++i) {
      ServerOptions server_options;
      server_options.cluster = cluster;
      server_options.job_name = "worker";
      server_options.task_index = i;
      server_options.log = [](const std::string&) {};
      CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, Server::Create(server_options));
      options.worker_servers.push_back(server.get());
      servers.push_back(std::move(server));
    }
    CLAB_ASSIGN_OR_RETURN(const examples::ClusterTrainingResult result, examples::TrainOnCluster(data, options));
    for (auto& server : servers) server->Stop().IgnoreError();
    ps->Stop();
    const double steps_per_second = static_cast<double>(result.steps) / result.seconds;
    const double reference = ReferenceStepsPerSecond(workers);
    out << "  " << workers
        << " worker(s): " << absl::StrFormat("%.0f steps/s, accuracy %.3f", steps_per_second, result.held_out_accuracy)
        << std::endl;
    // The share of the run that the same steps take without RPC; the rest is transfer and
    // coordination between the tasks.
    const std::string compute = absl::StrFormat("%.0f%%", 100.0 * local_seconds / result.seconds);
    table += absl::StrFormat("%-8d %9.2f %10.0f %12.0f %10.3f %9s %14s %8s\n", workers, result.seconds,
                             steps_per_second, steps_per_second * 32, result.held_out_accuracy, compute,
                             reference > 0 ? absl::StrFormat("%.0f steps/s", reference) : "-",
                             reference > 0 ? absl::StrFormat("%.2fx", steps_per_second / reference) : "-");
  }
  out << table;
  return OkStatus();
}

}  // namespace clab::cli
