// A short command run to its end (ssh running a small script, scp, sbatch, squeue,
// scancel): its exit status and every line it printed (stdout and stderr together).
#pragma once

#include "clab/core/Status.h"

#include <chrono>
#include <string>
#include <vector>

namespace clab::launch {

struct CommandResult {
  int exit_status = 0;  // 128 + the signal for a killed command
  std::vector<std::string> lines;
  // The lines as one text, for error messages ("ssh: connect to host ...: No route to host").
  std::string Output() const;
};

// `argv[0]` is the program (a path or a name on PATH). FAILED_PRECONDITION when it cannot
// start; DEADLINE_EXCEEDED (naming the command) when it has not ended after `timeout`,
// after which it is stopped.
StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

}  // namespace clab::launch
