// `clab example seed --job_name ps|worker --task_index N`: the seed program, one task per
// process, exactly as examples/seed/seed_distributed runs it. `clab demo` starts two.
#pragma once

#include "cli/Command.h"
#include "cli/TaskProgramFlags.h"

#include <cstdint>

namespace clab::cli {

class ExampleSeedCommand : public Command {
 public:
  std::string name() const override { return "example seed"; }
  std::string summary() const override;
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  TaskProgramFlags task_flags_;
  bool faithful_ = false;
};

}  // namespace clab::cli
