// Runs the tasks of a cluster on this machine as child processes of this command (`clab
// demo`, `clab train`): each task's lines are printed with its label ("[worker/0] ...") as
// they come; when every worker has ended (or the timeout passed), the other tasks are
// stopped with SIGTERM.
#pragma once

#include "clab/core/Status.h"

#include <chrono>
#include <iosfwd>
#include <string>
#include <vector>

namespace clab::cli {

struct LocalTask {
  std::string label;              // "ps/0", "worker/1"
  std::vector<std::string> args;  // for this executable
  bool is_worker = false;
};

struct LocalTasksResult {
  bool timed_out = false;
  std::vector<int> worker_status;                      // exit status per worker, in order
  std::vector<std::vector<std::string>> worker_lines;  // what each worker printed
  std::vector<int> other_status;                       // after SIGTERM, per other task
};

StatusOr<LocalTasksResult> RunLocalTasks(const std::vector<LocalTask>& tasks, std::ostream& out,
                                         std::chrono::seconds timeout);

}  // namespace clab::cli
