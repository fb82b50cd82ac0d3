// `clab bench step`: the seed step and variable pulls on a ps process and this process as
// the worker, each beside a plain gRPC call of the same payload to a minimal server process,
// measured in the same run. See bench/StepBenchmark.h.
#pragma once

#include "cli/Command.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clab::cli {

class BenchStepCommand : public Command {
 public:
  std::string name() const override { return "bench step"; }
  std::string summary() const override { return "Measure a distributed step and variable pulls against raw gRPC"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  int64_t rounds_ = 5;
  int64_t steps_ = 400;
  std::vector<std::string> modes_;
  std::vector<std::string> sizes_;
  std::string json_path_;
};

}  // namespace clab::cli
