// `clab bench simulate`: the simulator's predictions against real runs on this machine, over
// loopback and over tbf-shaped links between network namespaces (see sim/SimBenchmark.h).
#pragma once

#include "cli/Command.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clab::cli {

class BenchSimulateCommand : public Command {
 public:
  std::string name() const override { return "bench simulate"; }
  std::string summary() const override { return "Compare the simulator's predictions with real runs"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::string projects_ = "seed,digits-mlp,digits-cnn";
  std::string rates_ = "100,20";
  std::string configs_ = "1x1,1x2,1x4,2x2";
  bool no_loopback_ = false;
  int64_t repeats_ = 3;
  int64_t seconds_ = 5;
  std::string out_dir_;
  bool verbose_ = false;
  int64_t nice_ = 0;
};

}  // namespace clab::cli
