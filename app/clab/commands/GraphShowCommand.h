// `clab graph show FILE`: what a GraphDef holds, one node per row (op, requested device,
// output types, inferred shapes, inputs) and a summary line, before anyone runs it.
#pragma once

#include "cli/Command.h"

#include <string>

namespace clab::cli {

class GraphShowCommand : public Command {
 public:
  std::string name() const override { return "graph show"; }
  std::string summary() const override;
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::string path_;
};

}  // namespace clab::cli
