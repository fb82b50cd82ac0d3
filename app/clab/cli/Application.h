// The `clab` program: picks the command named on the command line, parses its flags, runs it
// and turns the outcome into an exit code. Every failure becomes exactly one line on the
// error stream, "clab: <what went wrong>", with exit code 2 for usage errors and 1 otherwise.
#pragma once

#include "clab/core/Status.h"
#include "cli/CommandRegistry.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace clab::cli {

class Application {
 public:
  // Registers the built-in commands.
  Application(std::ostream& out, std::ostream& err);

  // `args` excludes the program name. Returns the process exit code.
  int Run(std::vector<std::string> args);

 private:
  Status Dispatch(std::vector<std::string> args);
  void ReportError(const Status& status);

  std::ostream& out_;
  std::ostream& err_;
  CommandRegistry registry_;
};

}  // namespace clab::cli
