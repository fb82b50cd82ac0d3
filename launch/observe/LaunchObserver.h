// What a launch reports while it runs, whatever runs the tasks (ssh, SLURM): each task's
// output lines, its process starting and ending, problems named with the task they
// concern, and the state of a scheduler's job. Calls come from the launcher's threads, one
// at a time (a launcher serialises them).
#pragma once

#include <string>

namespace clab::launch {

class LaunchObserver {
 public:
  virtual ~LaunchObserver() = default;

  // `task` is "/job:ps/replica:0/task:0"; `pid` the process on `host` (0 when unknown).
  virtual void TaskStarted(const std::string& task, const std::string& host, long pid) {}
  virtual void TaskLine(const std::string& task, const std::string& line) {}
  // `exit_status`: 128 + the signal for a killed process; `stopped`: it was asked to stop.
  virtual void TaskEnded(const std::string& task, int exit_status, bool stopped) {}
  // Something the person must act on, for this task: an unreachable host, a missing
  // program, a port in use.
  virtual void TaskProblem(const std::string& task, const std::string& problem) {}
  // A batch job's state as the scheduler says it: PENDING, RUNNING, COMPLETED, FAILED...
  virtual void JobState(const std::string& job_id, const std::string& state, const std::string& reason) {}
  // Progress in words: "copying ClusterLab to 198.18.0.2", "submitted job 12".
  virtual void Note(const std::string& text) {}
};

}  // namespace clab::launch
