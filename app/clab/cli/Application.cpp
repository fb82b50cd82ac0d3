#include "cli/Application.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "commands/BuiltinCommands.h"

#include <absl/strings/str_cat.h>

#include <exception>
#include <ostream>

namespace clab::cli {
namespace {

// Scripts and tests read the first stderr line; engine messages may span several lines.
std::string OnOneLine(absl::string_view message) {
  std::string line;
  line.reserve(message.size());
  for (char c : message) {
    const bool blank = c == '\n' || c == '\t' || c == '\r' || c == ' ';
    if (!blank) line += c;
    else if (!line.empty() && line.back() != ' ') line += ' ';
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

}  // namespace

Application::Application(std::ostream& out, std::ostream& err) : out_(out), err_(err) {
  RegisterBuiltinCommands(registry_);
}

int Application::Run(std::vector<std::string> args) {
  Status status;
  try {
    status = Dispatch(std::move(args));
  } catch (const std::exception& e) {
    // Commands report errors as Status; an exception here is a bug, still worth one line.
    status = errors::Internal("unexpected failure: ", e.what());
  }
  out_.flush();
  if (!status.ok()) ReportError(status);
  return ExitCodeFor(status);
}

Status Application::Dispatch(std::vector<std::string> args) {
  // The conventional spellings of the two top-level flags are aliases of commands, so that
  // `clab --version` and `clab version` cannot drift apart.
  if (!args.empty()) {
    if (args[0] == "--version" || args[0] == "-V") args[0] = "version";
    else if (args[0] == "--help" || args[0] == "-h") args[0] = "help";
    else if (args[0].size() > 1 && args[0][0] == '-')
      return UsageError(absl::StrCat("unknown flag '", args[0], "' (see 'clab --help')"));
  }

  CLAB_ASSIGN_OR_RETURN(CommandRegistry::Match match, registry_.Resolve(args));
  FlagParser flags(match.command->name());
  match.command->DeclareFlags(flags);
  CLAB_RETURN_IF_ERROR(flags.Parse({args.begin() + static_cast<std::ptrdiff_t>(match.words_used), args.end()}));
  if (flags.help_requested()) {
    out_ << CommandRegistry::HelpFor(*match.command);
    return OkStatus();
  }
  return match.command->Run(out_);
}

void Application::ReportError(const Status& status) { err_ << "clab: " << OnOneLine(status.message()) << std::endl; }

}  // namespace clab::cli
