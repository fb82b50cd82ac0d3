// One `clab` command. A command declares its flags (the parser fills its members), then
// runs; it reports failure as a Status whose message becomes the single "clab: ..." line.
#pragma once

#include "clab/core/Status.h"

#include <iosfwd>
#include <string>

namespace clab::cli {

class FlagParser;

class Command {
 public:
  virtual ~Command() = default;

  // The words after "clab" that select it: "run", "graph show".
  virtual std::string name() const = 0;
  // One line for the command list of `clab --help`.
  virtual std::string summary() const = 0;
  // What `clab help <name>` says between the synopsis and the flags.
  virtual std::string description() const = 0;
  // Left out of `clab --help` and of the subcommand lists: commands that other commands
  // start as processes of their own (a benchmark's server), not meant to be typed.
  virtual bool hidden() const { return false; }

  virtual void DeclareFlags(FlagParser& flags) = 0;
  // Called once, after the flags parsed; normal output goes to `out`.
  virtual Status Run(std::ostream& out) = 0;
};

}  // namespace clab::cli
