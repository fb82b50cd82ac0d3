// `clab ops`: the ops the engine supports, grouped (math, array, state, ...), each with the
// device types it has kernels for and its one-line summary.
#pragma once

#include "cli/Command.h"

#include <string>

namespace clab::cli {

class OpsCommand : public Command {
 public:
  std::string name() const override { return "ops"; }
  std::string summary() const override { return "List the supported ops by group, with summaries"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::string group_;
};

}  // namespace clab::cli
