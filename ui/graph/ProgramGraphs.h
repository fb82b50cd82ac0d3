// The graph each program a project can run builds, as its worker 0 builds it inside
// replica_device_setter for the project's cluster: what the Graph tab shows for a project
// that has no graph of its own.
#pragma once

#include "clab/core/Status.h"
#include "graph/DevicePlacement.h"
#include "tensorflow/graph.pb.h"

#include <QString>

namespace clab::ui {

class ProgramGraphs {
 public:
  // "seed", "digits-mlp", "iris-softmax"; NOT_FOUND for another name.
  static StatusOr<tensorflow::GraphDef> build(const QString& program, const DevicePlacement::Cluster& cluster);
};

}  // namespace clab::ui
