// `clab version` (also `clab --version`): ClusterLab's version and the versions of the
// libraries it was built with, which matter when graphs or servers from elsewhere misbehave.
#pragma once

#include "cli/Command.h"

namespace clab::cli {

class VersionCommand : public Command {
 public:
  std::string name() const override { return "version"; }
  std::string summary() const override;
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override {}
  Status Run(std::ostream& out) override;
};

}  // namespace clab::cli
