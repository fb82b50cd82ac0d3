// `clab example train --model digits-mlp --job_name ps|worker --task_index N`: one task of
// an example training program (examples/models/TrainProgram.h).
#pragma once

#include "cli/ClusterFlags.h"
#include "cli/Command.h"

#include <cstdint>

namespace clab::cli {

class ExampleTrainCommand : public Command {
 public:
  std::string name() const override { return "example train"; }
  std::string summary() const override { return "Run one task of an example training program (real data)"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  ClusterFlags cluster_flags_;
  std::string model_ = "digits-mlp";
  int64_t last_step_ = 3000;
  bool sync_ = false;
  std::string checkpoint_dir_;
  int64_t wait_for_ps_ms_ = 60000;
  int64_t wait_for_watcher_ms_ = 0;
};

}  // namespace clab::cli
