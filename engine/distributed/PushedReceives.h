// One call fewer per training step. A ps partition that both serves the master's own task
// (the weights a worker reads) and waits for it (the gradients it applies) would cost three
// calls a step: its RunGraph, the worker's RecvTensor for the weights, and its own
// RecvTensor for the gradients. Such a partition is cut in two:
//
//   first part   what does not wait for the master's task (reading the weights). It receives
//                nothing, so its sends to the master's task come back in its RunGraph reply.
//   second part  what waits for the master's task (applying the gradients), with the
//                variables and constants it needs from the first part.
//                The master issues it once its own worker has produced the tensors, and
//                sends them in the RunGraph request (RunGraphRequest.delivered).
//
// Two calls a step instead of three, on the same critical path. A partition is cut only
// when every tensor it receives comes from the master's task, something it sends there does
// not wait for them, and whatever both parts need is a variable (shared by name on the
// task) or a constant; otherwise it is left whole.
#pragma once

#include "clab/core/Status.h"
#include "distributed/StepPlan.h"

#include <string>

namespace clab {

// Cuts the partitions of `plan` as above (appending the second parts); run before routes
// and inlined sends are worked out. `local_task` is the master's own task; only partitions
// whose early sends to it are all at most `max_bytes` (and so inlined) are cut.
Status CutPartitionsForPushedReceives(StepPlan* plan, const std::string& local_task, int64_t max_bytes);

}  // namespace clab
