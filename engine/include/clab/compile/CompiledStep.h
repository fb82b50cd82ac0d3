// What compiling one step signature gives (clab/compile/CompileStep.h): the graph pruned to
// what the step needs and placed on devices, cut into partitions (one per device or per
// task) whose edges across partitions became _Send/_Recv pairs, the routes of the fed and
// fetched tensors, and, when asked for, every _Send/_Recv pair with the bytes it carries.
#pragma once

#include "clab/compile/StepRoutes.h"
#include "clab/compile/StepSignature.h"
#include "clab/graph/Graph.h"
#include "tensorflow/graph.pb.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace clab {

struct CompiledStep {
  struct Partition {
    std::string name;  // the device, or the task ("/job:ps/replica:0/task:0")
    tensorflow::GraphDef graph;
  };
  // One tensor that crosses from one partition to another.
  struct Transfer {
    std::string tensor;               // what the _Send sends ("x/read:0", or a pack's output)
    std::vector<std::string> packed;  // the tensors a _PackTensors output carries, else empty
    std::string send_node;            // in partition `from`
    std::string recv_node;            // in partition `to`
    int from = -1;
    int to = -1;  // -1 when no partition receives it
    std::string send_device;
    std::string recv_device;
    int64_t bytes = -1;  // from the inferred shapes; -1 when they do not tell
  };

  StepSignature signature;  // as compiled: checked, each name once
  // The pruned graph with every node's assigned device (before transfers were packed).
  std::unique_ptr<Graph> placed;
  std::vector<Partition> partitions;  // in name order
  StepRoutes routes;                  // over `partitions`
  std::vector<Transfer> transfers;    // with CompileOptions::describe_transfers

  // The partition named `name`, or -1.
  int PartitionIndex(const std::string& name) const;
};

}  // namespace clab
