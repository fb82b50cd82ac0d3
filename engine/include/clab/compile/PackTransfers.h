// Fewer messages per step: the tensors that one device sends to a device of another task in
// a step (the weights a worker reads from its ps, the gradients it sends back) are packed
// into one byte tensor (_PackTensors) and unpacked on arrival (_UnpackTensors), so they
// travel as one message instead of one RecvTensor call each. A group is packed only when
// that leaves the graph free of cycles (a tensor that waits for an answer from the other
// task is not held back with those that do not). Only tasks that also receive in the step
// pack: one that only sends returns small tensors in its RunGraph reply, which is cheaper.
// Control edges from another task into a NoOp that nothing consumes (a train op) are
// dropped: the step ends only when every partition has finished, which says the same.
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/Graph.h"
#include "tensorflow/graph.pb.h"

#include <functional>
#include <memory>
#include <string>

namespace clab {

// `graph` must be placed. Returns the placed graph with pack and unpack nodes and without
// those control edges (every node's assigned device set), or null when nothing changed.
StatusOr<std::unique_ptr<Graph>> PackCrossTaskTransfers(
    const Graph& graph, const std::function<std::string(const std::string& device)>& task_of);

}  // namespace clab
