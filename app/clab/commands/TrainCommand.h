// `clab train PROJECT.clab [--workers N] [--ps M]`: runs a project's training program on a
// cluster of processes on this machine (free loopback ports), with each task's output
// prefixed, and ends with each worker's held-out accuracy.
#pragma once

#include "cli/Command.h"

#include <cstdint>
#include <string>

namespace clab::cli {

class TrainCommand : public Command {
 public:
  std::string name() const override { return "train"; }
  std::string summary() const override { return "Train a project's model on a local cluster of processes"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::string project_;
  int64_t workers_ = 0;  // 0: as many as the project has
  int64_t ps_ = 0;
  int64_t last_step_ = 0;  // 0: the project's
  bool sync_ = false;
  std::string checkpoint_dir_;
  int64_t save_checkpoint_steps_ = 0;
  int64_t save_checkpoint_secs_ = 0;
  int64_t timeout_s_ = 1800;
};

}  // namespace clab::cli
