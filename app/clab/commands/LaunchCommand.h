// `clab launch PROJECT --via ssh|slurm`: runs a project's cluster on its hosts over OpenSSH,
// or as a SLURM job, printing every task's output with its name until the run is over;
// Ctrl-C (or `clab launch PROJECT --stop` from elsewhere) stops exactly what it started.
// `--status` shows what a running launch recorded.
#pragma once

#include "cli/Command.h"

#include <cstdint>
#include <string>

namespace clab::cli {

class LaunchCommand : public Command {
 public:
  std::string name() const override { return "launch"; }
  std::string summary() const override { return "Run a project's cluster on its hosts over ssh, or through SLURM"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  Status StopRecorded(std::ostream& out);
  Status ShowStatus(std::ostream& out);

  std::string project_;
  std::string via_;
  bool stop_ = false;
  bool status_ = false;
  bool copy_binary_ = false;
  bool events_ = false;
  bool sbatch_ = false;
  std::string ssh_config_;
  std::string work_dir_;
  int64_t wait_for_watcher_ms_ = 0;
  int64_t finish_grace_s_ = 20;
};

}  // namespace clab::cli
