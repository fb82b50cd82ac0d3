// `clab help [COMMAND]` (also `clab --help`): the command list, or one command's flags.
#pragma once

#include "cli/Command.h"

#include <string>
#include <vector>

namespace clab::cli {

class CommandRegistry;

class HelpCommand : public Command {
 public:
  explicit HelpCommand(const CommandRegistry& registry) : registry_(registry) {}

  std::string name() const override { return "help"; }
  std::string summary() const override { return "Show the commands, or the flags of one command"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  const CommandRegistry& registry_;
  std::vector<std::string> command_words_;
};

}  // namespace clab::cli
