// What every actor of one simulation sees of the tasks' work: which task is computing now
// (a call that finds its callee at work costs it less, model/StepModel.h's
// awake_saving_seconds), each task's CPU so far, and how many calls found their callee awake.
#pragma once

#include <cstdint>
#include <vector>

namespace clab::sim {

struct TaskActivity {
  explicit TaskActivity(size_t tasks) : running(tasks, 0), cpu_seconds(tasks, 0) {}

  std::vector<int> running;         // per task: its activities computing now
  std::vector<double> cpu_seconds;  // per task: CPU done, in seconds of a calibrated core
  int64_t served_calls = 0;         // calls the other tasks served
  int64_t awake_calls = 0;          // of those, calls that found their callee at work
};

}  // namespace clab::sim
