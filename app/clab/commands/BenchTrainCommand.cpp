#include "commands/BenchTrainCommand.h"

#include "bench/TrainBenchmark.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "launch/process/ChildProcess.h"

#include <absl/strings/numbers.h>

#include <cstdlib>
#include <filesystem>
#include <ostream>

namespace clab::cli {
namespace {

// benchmarks/torch_ps.py in the source tree (CLAB_SOURCE_DIR when set, else the tree this
// was built from).
std::string DefaultTorchScript() {
  const char* source = std::getenv("CLAB_SOURCE_DIR");
  return (std::filesystem::path(source ? source : CLAB_SOURCE_DIR_FALLBACK) / "benchmarks" / "torch_ps.py").string();
}

}  // namespace

std::string BenchTrainCommand::description() const {
  return "Trains the digits MLP (64-128-10, ReLU, softmax cross-entropy, minibatches of 32, plain\n"
         "gradient descent at 0.1) on resources/data/digits.csv.gz for --steps global steps,\n"
         "asynchronously, with one ps and 1, 2 and 4 workers, every task a process of its own\n"
         "('clab server' for the ps), each worker on its own shard, over loopback gRPC. Beside\n"
         "it, in the same run, the PyTorch peer: benchmarks/torch_ps.py, a parameter server over\n"
         "PyTorch RPC with the same model, data, shards, batch, learning rate and steps, push\n"
         "and pull in one RPC (needs Debian's python3-torch; without it the table says so), and\n"
         "the same steps in this process without any RPC (the local row). Prints global steps/s,\n"
         "CPU time and context switches per global step of all the processes, held-out accuracy\n"
         "and the ratio to PyTorch. Every round runs each configuration once, ClusterLab and the\n"
         "peer one after the other; figures are medians over --rounds rounds.";
}

void BenchTrainCommand::DeclareFlags(FlagParser& flags) {
  flags.AddStringList("workers", "N", "a number of workers to measure (default: 1, 2 and 4)", &workers_);
  flags.AddInt("steps", "N", "global steps per run", &steps_, 1);
  flags.AddInt("hidden", "N", "units of the hidden layer", &hidden_, 1, 100000);
  flags.AddInt("rounds", "N", "interleaved rounds (the median over them is reported)", &rounds_, 1, 1000);
  flags.AddString("peer", "NAME", "torch (the PyTorch RPC peer) or none", &peer_);
  flags.AddString("python", "PATH", "the Python with torch (default: python3 on PATH, then /usr/bin/python3)",
                  &python_);
  flags.AddString("torch_script", "FILE", "the peer's script (default: benchmarks/torch_ps.py in the source tree)",
                  &torch_script_);
}

Status BenchTrainCommand::Run(std::ostream& out) {
  TrainBenchmarkOptions options;
  options.worker_counts.clear();
  for (const std::string& text : workers_) {
    int n = 0;
    if (!absl::SimpleAtoi(text, &n) || n < 1 || n > 16) return UsageError("--workers '" + text + "': want 1 to 16");
    options.worker_counts.push_back(n);
  }
  if (options.worker_counts.empty()) options.worker_counts = {1, 2, 4};
  if (peer_ != "torch" && peer_ != "none") return UsageError("--peer '" + peer_ + "': want torch or none");
  options.clab_program = launch::ChildProcess::SelfPath();
  options.steps = steps_;
  options.hidden = static_cast<int>(hidden_);
  options.rounds = static_cast<int>(rounds_);
  options.peer = peer_ == "torch";
  options.python = python_;
  options.torch_script = torch_script_.empty() ? DefaultTorchScript() : torch_script_;
  options.progress = [&out](const std::string& line) { out << "  " << line << std::endl; };
  out << "Digits MLP 64-" << hidden_ << "-10, batch 32, SGD 0.1, " << steps_
      << " global steps, asynchronous; 1 ps and the workers as processes of their own, " << rounds_
      << " interleaved rounds." << std::endl;
  CLAB_ASSIGN_OR_RETURN(const TrainBenchmarkResult result, RunTrainBenchmark(options));
  out << "\n" << FormatTrainTable(result);
  return OkStatus();
}

}  // namespace clab::cli
