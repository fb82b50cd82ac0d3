// Assigns every node of a graph to one device: explicit and partial device requests are
// matched against the available devices, colocation groups (the _class attr "loc:@node"
// and reference edges, e.g. an Assign and its variable) share one device, soft placement
// falls back to a device that has a kernel. With log_device_placement it prints one line
// per node in TensorFlow's format: "MatMul: (MatMul): /job:worker/replica:0/task:0/device:CPU:0".
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/Graph.h"

#include <functional>
#include <string>
#include <vector>

namespace clab {

struct PlacerOptions {
  bool allow_soft_placement = false;
  bool log_device_placement = false;
  // Where unconstrained nodes go (a spec, e.g. the client's worker "/job:worker/task:0").
  // Empty: the first available device in the list order (the local CPU).
  std::string default_device;
  // Receives each placement log line (without newline) and soft-placement notes. Unset:
  // printed to stdout.
  std::function<void(const std::string&)> log;
};

struct AvailableDevice {
  std::string name;  // full name
  std::string type;  // "CPU", "GPU"
};

// Sets Node::assigned_device for every node. INVALID_ARGUMENT errors follow TensorFlow's
// wording: "Cannot assign a device for operation 'x': Operation was explicitly assigned to
// /job:worker/task:7 but available devices are [ ... ]. Make sure the device specification
// refers to a valid device."
Status PlaceGraph(Graph* graph, const std::vector<AvailableDevice>& devices, const PlacerOptions& options);

}  // namespace clab
