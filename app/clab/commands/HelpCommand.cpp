#include "commands/HelpCommand.h"

#include "cli/CliStatus.h"
#include "cli/CommandRegistry.h"
#include "cli/FlagParser.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <ostream>

namespace clab::cli {

std::string HelpCommand::description() const {
  return "Without a command, lists every command with a one-line summary. With one, shows how to\n"
         "call it and what each of its flags does (the same as `clab COMMAND --help`).";
}

void HelpCommand::DeclareFlags(FlagParser& flags) {
  flags.AddRemainingPositionals("COMMAND", "the command to explain, e.g. 'run' or 'graph show'", &command_words_);
}

Status HelpCommand::Run(std::ostream& out) {
  if (command_words_.empty()) {
    out << registry_.Overview();
    return OkStatus();
  }
  CLAB_ASSIGN_OR_RETURN(CommandRegistry::Match match, registry_.Resolve(command_words_));
  if (match.words_used < command_words_.size())
    return UsageError(absl::StrCat("unknown command '", absl::StrJoin(command_words_, " "), "' (see 'clab --help')"));
  out << CommandRegistry::HelpFor(*match.command);
  return OkStatus();
}

}  // namespace clab::cli
