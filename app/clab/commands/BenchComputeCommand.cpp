#include "commands/BenchComputeCommand.h"

#include "bench/ComputeBenchmark.h"
#include "cli/FlagParser.h"

#include <ostream>

namespace clab::cli {

std::string BenchComputeCommand::description() const {
  return "Measures, in this process and without RPC, one training step of the digits MLP\n"
         "(64-hidden-10, ReLU, softmax cross-entropy, batch 32, SGD) in a ClusterLab session\n"
         "against the same maths written directly in Eigen, and an N x N x N float32 MatMul\n"
         "against Eigen's own contraction on a pool of as many threads. Both sides are built\n"
         "with the same compiler flags and alternate within each round; the table gives\n"
         "medians over rounds of the time, CPU time and context switches per step, and the\n"
         "ratio floor/ClusterLab with its target.";
}

void BenchComputeCommand::DeclareFlags(FlagParser& flags) {
  flags.AddInt("rounds", "N", "interleaved rounds; figures are medians over them", &rounds_, 1, 101);
  flags.AddInt("steps", "N", "MLP steps per round and side", &steps_, 1);
  flags.AddInt("hidden", "N", "units of the MLP's hidden layer", &hidden_, 1, 65536);
  flags.AddInt("matmul", "N", "size of the MatMul row (0: no MatMul row)", &matmul_, 0, 16384);
}

Status BenchComputeCommand::Run(std::ostream& out) {
  ComputeBenchmarkOptions options;
  options.rounds = static_cast<int>(rounds_);
  options.mlp_steps = steps_;
  options.hidden = static_cast<int>(hidden_);
  options.matmul_size = matmul_;
  options.progress = [&out](const std::string& line) { out << line << std::endl; };
  out << "One process, no RPC; " << rounds_ << " interleaved rounds, medians." << std::endl;
  CLAB_ASSIGN_OR_RETURN(const std::vector<ComputeRow> rows, RunComputeBenchmark(options));
  out << "\n" << FormatComputeTable(rows);
  return OkStatus();
}

}  // namespace clab::cli
