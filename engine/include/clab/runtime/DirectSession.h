// The in-process session: places the graph on this process's devices, prunes it per
// (feeds, fetches, targets), partitions it per device and runs the partitions concurrently.
// Pruned, placed and partitioned graphs are cached per signature, so the steady state of a
// training loop does no graph work.
#pragma once

#include "clab/runtime/Session.h"

namespace clab {

// The devices are named under `task_prefix` ("/job:localhost/replica:0/task:0" by default).
StatusOr<std::unique_ptr<Session>> NewDirectSession(const SessionOptions& options,
                                                    const std::string& task_prefix = "/job:localhost/replica:0/task:0");

}  // namespace clab
