// The commands `clab` knows, found by their words ("graph show" before "graph"), and the
// help texts built from their declarations.
#pragma once

#include "clab/core/Status.h"
#include "cli/Command.h"

#include <memory>
#include <string>
#include <vector>

namespace clab::cli {

class CommandRegistry {
 public:
  struct Match {
    Command* command = nullptr;
    size_t words_used = 0;  // how many leading arguments named the command
  };

  void Add(std::unique_ptr<Command> command);
  const std::vector<std::unique_ptr<Command>>& commands() const { return commands_; }

  // Finds the command named by the leading words of `args`. Usage errors: "unknown command
  // 'graph frob'", "'clab graph' needs a subcommand: show".
  StatusOr<Match> Resolve(const std::vector<std::string>& args) const;

  // `clab --help`: what clab is, and one line per command.
  std::string Overview() const;
  // `clab help CMD`: synopsis, description, flags.
  static std::string HelpFor(Command& command);

 private:
  Command* Find(const std::string& name) const;
  std::vector<std::string> SubcommandsOf(const std::string& group) const;

  std::vector<std::unique_ptr<Command>> commands_;
};

}  // namespace clab::cli
