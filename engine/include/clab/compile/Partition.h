// Splits a placed graph into one GraphDef per device (or per task), replacing every edge
// that crosses a boundary by a _Send/_Recv pair that meet in a rendezvous. Control edges
// across boundaries become a dummy tensor sent and received, as TensorFlow does.
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/Graph.h"
#include "tensorflow/graph.pb.h"

#include <functional>
#include <map>
#include <string>

namespace clab {

struct PartitionOptions {
  // Which partition a device belongs to: the device itself (local sessions) or its task
  // prefix (the master splitting across servers).
  std::function<std::string(const std::string& device)> partition_of;
  // The incarnation of a device, written into rendezvous keys so that a restarted task's
  // tensors are never confused with its predecessor's.
  std::function<uint64_t(const std::string& device)> incarnation_of;
};

// `graph` must be placed. The result maps partition name -> GraphDef whose nodes keep their
// assigned device in NodeDef.device.
Status PartitionGraph(const Graph& graph, const PartitionOptions& options,
                      std::map<std::string, tensorflow::GraphDef>* partitions);

}  // namespace clab
