#include "launch/process/CommandRun.h"

#include "launch/process/ChildProcess.h"

#include <absl/strings/str_join.h>

#include <memory>

namespace clab::launch {

std::string CommandResult::Output() const { return absl::StrJoin(lines, "\n"); }

StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  if (argv.empty()) return errors::InvalidArgument("no command to run");
  // Only the reader thread appends, and it is joined (child.reset()) before anyone reads.
  auto lines = std::make_shared<std::vector<std::string>>();
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<ChildProcess> child,
                        ChildProcess::Start(
                            argv[0], std::vector<std::string>(argv.begin() + 1, argv.end()),
                            [lines](const std::string& line) { lines->push_back(line); },
                            ChildProcess::Options{.own_process_group = true}));
  std::optional<int> status = child->Wait(timeout);
  if (!status) {
    child->Stop(std::chrono::milliseconds(1000));
    return errors::DeadlineExceeded("'", argv[0], "' did not finish within ", timeout.count() / 1000.0, " s");
  }
  // The output reader ends with the program's last writer; the lines are complete after it.
  child.reset();
  CommandResult result;
  result.exit_status = *status;
  result.lines = std::move(*lines);
  return result;
}

}  // namespace clab::launch
