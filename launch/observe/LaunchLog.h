// What `clab launch` prints while it runs: each task's lines with its short name
// ("[ps/0] Serving ..."), its process starting and ending, problems, the job's state and
// notes, one line each; safe to call from several threads.
#pragma once

#include "launch/observe/LaunchObserver.h"

#include <iosfwd>
#include <mutex>

namespace clab::launch {

class LaunchLog : public LaunchObserver {
 public:
  explicit LaunchLog(std::ostream& out) : out_(out) {}

  void TaskStarted(const std::string& task, const std::string& host, long pid) override;
  void TaskLine(const std::string& task, const std::string& line) override;
  void TaskEnded(const std::string& task, int exit_status, bool stopped) override;
  void TaskProblem(const std::string& task, const std::string& problem) override;
  void JobState(const std::string& job_id, const std::string& state, const std::string& reason) override;
  void Note(const std::string& text) override;

  // "/job:ps/replica:0/task:0" -> "ps/0".
  static std::string ShortName(const std::string& task);

 private:
  void Print(const std::string& task, const std::string& text);

  std::ostream& out_;
  std::mutex mu_;
};

}  // namespace clab::launch
