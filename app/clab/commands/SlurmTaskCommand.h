// `clab slurm task PROJECT [--port_base P]`: what each task of a `clab launch --via slurm`
// job step runs. It works out the cluster and its own job and index from SLURM's
// environment (SlurmClusterResolver, with the project's jobs), says so, and becomes that
// task of the project: `clab server` for a ps (which ends once the workers are done), the
// project's program for a worker.
#pragma once

#include "cli/Command.h"

#include <cstdint>
#include <string>

namespace clab::cli {

class SlurmTaskCommand : public Command {
 public:
  std::string name() const override { return "slurm task"; }
  std::string summary() const override { return "Run this SLURM task's part of a project (in a job step)"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::string project_;
  int64_t port_base_ = 0;  // 0: the project's
  std::string tls_root_;   // "" : the project's security flags as they are
};

}  // namespace clab::cli
