#include "cli/CommandRegistry.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>

namespace clab::cli {

void CommandRegistry::Add(std::unique_ptr<Command> command) { commands_.push_back(std::move(command)); }

Command* CommandRegistry::Find(const std::string& name) const {
  for (const auto& command : commands_)
    if (command->name() == name) return command.get();
  return nullptr;
}

std::vector<std::string> CommandRegistry::SubcommandsOf(const std::string& group) const {
  std::vector<std::string> subcommands;
  const std::string prefix = group + " ";
  for (const auto& command : commands_) {
    const std::string name = command->name();
    if (!command->hidden() && name.rfind(prefix, 0) == 0) subcommands.push_back(name.substr(prefix.size()));
  }
  return subcommands;
}

StatusOr<CommandRegistry::Match> CommandRegistry::Resolve(const std::vector<std::string>& args) const {
  if (args.empty()) return UsageError("no command given (see 'clab --help')");
  // Longer names first, so "graph show" wins over a future plain "graph".
  if (args.size() >= 2) {
    if (Command* command = Find(args[0] + " " + args[1])) return Match{command, 2};
  }
  if (Command* command = Find(args[0])) return Match{command, 1};

  const std::vector<std::string> subcommands = SubcommandsOf(args[0]);
  if (!subcommands.empty()) {
    const bool subcommand_given = args.size() >= 2 && args[1].rfind('-', 0) != 0;
    if (!subcommand_given)
      return UsageError(absl::StrCat("'clab ", args[0], "' needs a subcommand: ", absl::StrJoin(subcommands, ", "),
                                     " (see 'clab --help')"));
    return UsageError(absl::StrCat("unknown command '", args[0], " ", args[1], "' (see 'clab --help')"));
  }
  return UsageError(absl::StrCat("unknown command '", args[0], "' (see 'clab --help')"));
}

std::string CommandRegistry::Overview() const {
  std::string text =
      "The ClusterLab command line: inspects and runs TensorFlow-1.x-style graphs\n"
      "(GraphDef .pbtxt/.pb files) with the ClusterLab engine.\n\n"
      "Usage: clab COMMAND [flags]\n"
      "       clab --version | --help | help COMMAND\n\n"
      "Commands:\n";
  size_t width = 0;
  for (const auto& command : commands_)
    if (!command->hidden()) width = std::max(width, command->name().size());
  for (const auto& command : commands_) {
    if (command->hidden()) continue;
    const std::string name = command->name();
    absl::StrAppend(&text, "  ", name, std::string(width - name.size() + 3, ' '), command->summary(), "\n");
  }
  absl::StrAppend(&text, "\nRun 'clab help COMMAND' for a command's flags.\n");
  return text;
}

std::string CommandRegistry::HelpFor(Command& command) {
  FlagParser flags(command.name());
  command.DeclareFlags(flags);
  return absl::StrCat("Usage: ", flags.Synopsis(), "\n\n", command.description(), "\n\nFlags:\n", flags.FlagHelp());
}

}  // namespace clab::cli
