// `clab bench compute`: the engine's cost on one machine without RPC, next to plain Eigen
// programs of the same maths measured in the same run (bench/ComputeBenchmark).
#pragma once

#include "cli/Command.h"

#include <cstdint>

namespace clab::cli {

class BenchComputeCommand : public Command {
 public:
  std::string name() const override { return "bench compute"; }
  std::string summary() const override { return "Measure one-process steps and MatMul against plain Eigen"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  int64_t rounds_ = 5;
  int64_t steps_ = 2000;
  int64_t hidden_ = 128;
  int64_t matmul_ = 2048;
};

}  // namespace clab::cli
