// `clab slurm spec [--jobs ps:1,worker:2 | --project P] [--port_base 8888]`: the ClusterSpec
// a task of the current SLURM job step gets, worked out from SLURM's environment as
// TensorFlow's SlurmClusterResolver does, and this task's TF_CONFIG when SLURM_PROCID says
// which task it is.
#pragma once

#include "cli/Command.h"

#include <cstdint>
#include <string>

namespace clab::cli {

class SlurmSpecCommand : public Command {
 public:
  std::string name() const override { return "slurm spec"; }
  std::string summary() const override { return "Print the ClusterSpec a SLURM job step gives its tasks"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::string jobs_;
  std::string project_;
  int64_t port_base_ = 8888;
  int64_t gpus_per_node_ = 0;
  int64_t gpus_per_task_ = 0;
};

}  // namespace clab::cli
