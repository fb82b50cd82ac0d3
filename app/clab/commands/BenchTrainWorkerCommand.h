// `clab bench train-worker` (not listed in --help): one worker of `clab bench train`'s
// ClusterLab runs, which the benchmark starts as a process of its own. See bench/TrainWorker.h.
#pragma once

#include "cli/Command.h"

#include <cstdint>
#include <string>

namespace clab::cli {

class BenchTrainWorkerCommand : public Command {
 public:
  std::string name() const override { return "bench train-worker"; }
  std::string summary() const override { return "Run one worker of 'clab bench train'"; }
  std::string description() const override;
  bool hidden() const override { return true; }
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::string cluster_;
  int64_t task_index_ = 0;
  int64_t steps_ = 3000;
  int64_t hidden_ = 128;
  std::string go_file_;
};

}  // namespace clab::cli
