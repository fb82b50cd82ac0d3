#include "cli/LocalTasks.h"

#include "launch/process/ChildProcess.h"

#include <algorithm>
#include <mutex>
#include <ostream>

namespace clab::cli {

using launch::ChildProcess;

StatusOr<LocalTasksResult> RunLocalTasks(const std::vector<LocalTask>& tasks, std::ostream& out,
                                         std::chrono::seconds timeout) {
  size_t width = 0;
  for (const LocalTask& task : tasks) width = std::max(width, task.label.size());
  std::mutex out_mu;
  std::vector<std::unique_ptr<ChildProcess>> workers, others;
  const std::string self = ChildProcess::SelfPath();
  for (const LocalTask& task : tasks) {
    std::string prefix = "[" + task.label + "]";
    prefix.resize(width + 3, ' ');
    auto printer = [&out, &out_mu, prefix](const std::string& line) {
      std::lock_guard<std::mutex> lock(out_mu);
      out << prefix << line << std::endl;
    };
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<ChildProcess> child, ChildProcess::Start(self, task.args, printer));
    (task.is_worker ? workers : others).push_back(std::move(child));
  }
  LocalTasksResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (auto& worker : workers) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    std::optional<int> status = worker->Wait(std::max(left, std::chrono::milliseconds(0)));
    if (!status) {
      result.timed_out = true;
      status = worker->Stop();
    }
    result.worker_status.push_back(*status);
  }
  for (auto& other : others) result.other_status.push_back(other->Stop());
  for (auto& worker : workers) result.worker_lines.push_back(worker->lines());
  // Destroying the children joins their output readers: every line is out before we return.
  workers.clear();
  others.clear();
  return result;
}

}  // namespace clab::cli
