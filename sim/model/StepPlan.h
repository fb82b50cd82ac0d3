// A step of a worker's graph as the simulator plays it: the nodes each task runs, and each
// Send/Recv pair between two tasks with the bytes it carries and what its sending node waits
// for. PlanStep compiles the step with the engine's one pipeline, CompileStep
// (clab/compile/CompileStep.h), as the master does (prune to the step's fetches and targets,
// place on one CPU per task, pack what crosses between two tasks into one message, partition
// per task, describe the transfers), and reads its partitions into these terms.
#pragma once

#include "clab/core/Status.h"
#include "tensorflow/graph.pb.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace clab::sim {

struct PlanNode {
  std::string name;
  std::string op;
  std::string task;  // "/job:ps/replica:0/task:0"
  // Shapes of the inputs and outputs (-1 for an unknown dimension; an empty list for a
  // scalar); what the FLOP-count model reads.
  std::vector<std::vector<int64_t>> input_shapes;
  std::vector<std::vector<int64_t>> output_shapes;
  // The transfers (indexes into StepPlan::transfers) the node waits for, directly or
  // through its inputs, within its partition; after_receive when there is any.
  std::vector<int> waits_for;
  bool after_receive = false;
  bool IsTransfer() const;  // _Send, _Recv and the pack/unpack around them
};

struct PlanTransfer {
  std::string from_task;
  std::string to_task;
  std::string send_node;
  std::string recv_node;
  std::vector<std::string> tensors;  // what it carries (the packed tensors when packed)
  int64_t bytes = 0;
  // What the sending node waits for (the weights a ps sends wait for nothing; a tensor made
  // from the gradients it received waits for them).
  std::vector<int> waits_for;
  bool after_receive = false;
};

struct StepPlan {
  std::string session_task;        // the worker whose client runs the step
  std::vector<std::string> tasks;  // every task of the cluster, in job then index order
  std::vector<PlanNode> nodes;     // every node of every partition
  std::vector<PlanTransfer> transfers;

  std::vector<const PlanNode*> NodesOf(const std::string& task) const;
  int64_t BytesBetween(const std::string& from, const std::string& to) const;
};

struct PlanRequest {
  const tensorflow::GraphDef* graph = nullptr;
  std::vector<std::string> fetches;  // tensors ("loss:0") or nodes that have outputs
  std::vector<std::string> targets;  // nodes run for their effect ("train")
  std::map<std::string, int> tasks;  // job -> task count
  std::string session_task;          // where unconstrained nodes go (the client's worker)
};

// Errors: CompileStep's (a fetch not in the graph, a device no task of the cluster has,
// naming the node), and a tensor crossing tasks whose size the shapes do not tell.
StatusOr<StepPlan> PlanStep(const PlanRequest& request);

}  // namespace clab::sim
