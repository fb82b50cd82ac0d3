// What a stretch of a benchmark costs: wall time, CPU time (user + system) and context
// switches (voluntary + involuntary), of this process (getrusage) plus the server processes
// the benchmark started (/proc/PID/stat for their CPU time, the sum over /proc/PID/task/*/status
// for their switches), divided by the steps the stretch ran.
//
//   CostMeter meter({ps->pid()});
//   for (...) step();
//   const StepCost cost = meter.PerStep(steps);
//
// Another process's switches are counted per thread (the kernel keeps no total for the threads
// that ended): a stretch counts what each thread alive at its end did since its start, so the
// switches of a thread that ended during the stretch are missing, never subtracted.
#pragma once

#include "clab/core/Status.h"

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <vector>

namespace clab::cli {

struct StepCost {
  double wall_us = 0;           // per step
  double cpu_us = 0;            // per step, all the measured processes together
  double context_switches = 0;  // per step, same
};

// CPU time and context switches of one process so far.
struct ProcessUsage {
  double cpu_us = 0;
  double context_switches = 0;
  std::map<pid_t, double> thread_switches;  // another process's, per live thread

  // What happened between `start` and this, of the same process.
  ProcessUsage Since(const ProcessUsage& start) const;
};

class CostMeter {
 public:
  // Starts the stretch now. `others`: processes measured beside this one.
  explicit CostMeter(std::vector<pid_t> others = {});

  // The stretch from the constructor to now, per step. A measured process that has ended
  // makes it fail, naming the process.
  StatusOr<StepCost> PerStep(int64_t steps) const;

  static ProcessUsage Self();
  static StatusOr<ProcessUsage> Of(pid_t pid);

 private:
  // This process's usage, then each other's.
  StatusOr<std::vector<ProcessUsage>> Sample() const;

  std::vector<pid_t> others_;
  std::chrono::steady_clock::time_point start_;
  StatusOr<std::vector<ProcessUsage>> start_usage_;
};

// The median of each field over several stretches.
StepCost MedianCost(const std::vector<StepCost>& costs);

}  // namespace clab::cli
