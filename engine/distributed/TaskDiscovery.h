// Finds the devices of a set of tasks by asking each one for its status, all at once, and
// asking again while a task does not answer: tasks of a cluster start in any order, and a
// session should start as soon as the last one it needs is up. While it waits it says, at
// a steady interval, which tasks are missing and at which address.
#pragma once

#include "clab/core/Status.h"
#include "distributed/WorkerInterface.h"
#include "tensorflow/device_attributes.pb.h"

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace clab {

struct TaskDiscoveryOptions {
  WorkerCache* workers = nullptr;
  // Negative: wait forever.
  int64_t deadline_ms = 120000;
  int64_t log_interval_ms = 2000;
  // What the log line says is waiting ("CreateSession").
  std::string waiter = "CreateSession";
  std::function<void(const std::string&)> log;
  // Set by the server when it stops: the wait ends with ABORTED.
  const std::atomic<bool>* stopping = nullptr;
  // The call that waits, when it has one: its client going away ends the wait with CANCELLED.
  CallCancellation* cancellation = nullptr;
  // When set, a deadline returns the tasks that did answer instead of an error.
  bool partial_ok = false;
};

struct DiscoveredDevices {
  // Task name -> its devices, for every task that answered.
  std::map<std::string, std::vector<tensorflow::DeviceAttributes>> by_task;
  // Tasks that did not answer before the deadline (only with partial_ok).
  std::vector<std::string> missing;
};

// Blocks until every task in `tasks` answered. UNAVAILABLE at the deadline names every
// missing task, its address and its last error, and says what to do about it.
StatusOr<DiscoveredDevices> DiscoverTaskDevices(const std::vector<std::string>& tasks,
                                                const TaskDiscoveryOptions& options);

}  // namespace clab
