// The graph one worker of a project runs each step, and what the step fetches and runs: the
// program's own graph as its worker builds it for the cluster (under replica_device_setter,
// as the training and seed programs do), or the graph edited in the studio. The hooks of a
// monitored session add the global step to the fetches, as they do in a real run.
#pragma once

#include "clab/core/Status.h"
#include "project/SimProject.h"
#include "tensorflow/graph.pb.h"

#include <map>
#include <string>
#include <vector>

namespace clab::sim {

struct StepGraph {
  tensorflow::GraphDef graph;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
};

// `tasks`: job -> count of the simulated cluster (it may differ from the project's).
StatusOr<StepGraph> BuildStepGraph(const SimProject& project, const std::map<std::string, int>& tasks);

}  // namespace clab::sim
