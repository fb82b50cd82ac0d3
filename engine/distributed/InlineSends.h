// One round trip fewer per step for the common read-the-parameters pattern. A partition
// that receives nothing from other tasks (a ps partition that only reads variables) can
// finish on its own, so the small tensors it sends to the master's own task can come back
// in its RunGraph reply, as extra fetches, instead of waiting there for the master task's
// RecvTensor calls. The master then hands them to its own worker's step rendezvous.
//
// Only tensors whose size is known from the graph (a variable's shape attr or a constant,
// through Identity nodes) and at most `max_bytes` are inlined: big tensors keep the
// zero-copy RecvTensor path, where an extra round trip costs less than extra copies.
#pragma once

#include "clab/core/Status.h"
#include "distributed/StepPlan.h"

#include <cstdint>
#include <string>

namespace clab {

Status InlineSmallSends(StepPlan* plan, const std::string& local_task, int64_t max_bytes);

// The bytes of `tensor` ("node:0") as the graph tells them (see above), or -1.
int64_t KnownTensorBytes(const tensorflow::GraphDef& graph, const std::string& tensor);

}  // namespace clab
