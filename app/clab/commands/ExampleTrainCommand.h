// `clab example train --model digits-mlp --job_name ps|worker --task_index N`: one task of
// an example training program (examples/models/TrainProgram.h).
#pragma once

#include "cli/Command.h"
#include "cli/TaskProgramFlags.h"

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
  TaskProgramFlags task_flags_{3000};
  std::string model_ = "digits-mlp";
  bool sync_ = false;
  bool log_device_placement_ = false;
};

}  // namespace clab::cli
