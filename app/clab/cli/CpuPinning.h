// Pins every thread of a process to one CPU (sched_setaffinity on each /proc/PID/task/TID;
// threads started later inherit it from their creator), or lets them run anywhere again.
// Latency benchmarks pin both ends so that "same core" and "two cores" are measured on
// purpose instead of as the scheduler happens to place them.
#pragma once

#include "clab/core/Status.h"

#include <sys/types.h>

namespace clab::cli {

int OnlineCpuCount();
// cpu < 0: every online CPU.
Status PinProcessToCpu(pid_t pid, int cpu);

}  // namespace clab::cli
