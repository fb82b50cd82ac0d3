// The one graph compilation pipeline, as TensorFlow's GraphExecutionState and graph
// partitioning do it: for one step signature, prune the graph to what the step needs,
// place every node on a device, pack the tensors that one device sends to another task into
// one message (when partitioning by task), and cut the graph into partitions joined by
// _Send/_Recv pairs. The local session (a partition per device), the master (a partition
// per task), the studio's teaching walkthrough and the simulator all compile through it;
// sessions keep the results in a PlanCache under StepSignature::Key().
//
//   CompileOptions options;
//   for (const std::string& task : tasks) options.devices.push_back({task + "/device:CPU:0", "CPU"});
//   options.placer.default_device = "/job:worker/replica:0/task:0";
//   options.describe_transfers = true;
//   auto step = CompileStep(graph_def, {.fetches = {"loss:0"}, .targets = {"train"}}, options);
//   step->partitions;  // one GraphDef per task
//   step->transfers;   // every _Send/_Recv pair between tasks, with its bytes where known
#pragma once

#include "clab/compile/CompiledStep.h"
#include "clab/compile/Placer.h"
#include "clab/compile/StepSignature.h"
#include "clab/core/Status.h"
#include "clab/graph/Graph.h"
#include "tensorflow/graph.pb.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clab {

enum class PartitionBy {
  kDevice,  // a local session: one executor per device
  kTask,    // a master: one registered graph per task, cross-task transfers packed
};

struct CompileOptions {
  // The devices to place on, in the placer's order of preference.
  std::vector<AvailableDevice> devices;
  PlacerOptions placer;
  PartitionBy partition_by = PartitionBy::kTask;
  // A device's incarnation, written into rendezvous keys. Unset: 0 for every device.
  std::function<uint64_t(const std::string& device)> incarnation_of;
  // Where stateful nodes (variables) of earlier compilations of the same session went:
  // they stay there, since their state lives on that device. Updated with this
  // compilation's stateful nodes. May be null.
  std::map<std::string, std::string>* stateful_placement = nullptr;
  // Also list every _Send/_Recv pair with its bytes (shape inference over the placed graph).
  bool describe_transfers = false;
};

// `graph` is `graph_def` as built by Graph::FromGraphDef (sessions keep it). Errors:
// NOT_FOUND naming a feed, fetch or target that is not in the graph, INVALID_ARGUMENT for a
// tensor fed twice, the placer's INVALID_ARGUMENT for impossible device requests.
StatusOr<std::unique_ptr<CompiledStep>> CompileStep(const tensorflow::GraphDef& graph_def, const Graph& graph,
                                                    const StepSignature& signature, const CompileOptions& options);
// The same, building the Graph first.
StatusOr<std::unique_ptr<CompiledStep>> CompileStep(const tensorflow::GraphDef& graph_def,
                                                    const StepSignature& signature, const CompileOptions& options);

}  // namespace clab
