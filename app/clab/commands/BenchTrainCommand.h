// `clab bench train`: the digits MLP (64-128-10, ReLU, softmax cross-entropy, batch 32, SGD
// at 0.1) trained asynchronously for a fixed number of global steps by 1, 2 and 4 workers
// against one ps, every task a process of its own over loopback, beside a PyTorch RPC
// parameter server doing the same in the same run. See bench/TrainBenchmark.h.
#pragma once

#include "cli/Command.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clab::cli {

class BenchTrainCommand : public Command {
 public:
  std::string name() const override { return "bench train"; }
  std::string summary() const override { return "Measure distributed training of the digits MLP against PyTorch"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::vector<std::string> workers_;
  int64_t steps_ = 3000;
  int64_t hidden_ = 128;
  int64_t rounds_ = 5;
  std::string peer_ = "torch";
  std::string python_;
  std::string torch_script_;
};

}  // namespace clab::cli
