// What the master builds once per (feeds, fetches, targets) signature: the step compiled by
// the engine's pipeline (clab/compile/CompileStep.h: pruned, placed, packed, cut into one
// partition per task), each partition bound to its task's worker, with the master's own
// shortcuts (a ps partition cut in two, small sends inlined in RunGraph replies). After
// registration each partition also knows its worker's graph handle; steps then only move
// tensors.
#pragma once

#include "clab/compile/CompileStep.h"
#include "clab/compile/StepRoutes.h"
#include "clab/compile/StepSignature.h"
#include "clab/core/Status.h"
#include "distributed/WorkerInterface.h"
#include "tensorflow/graph.pb.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace clab {

struct StepPlan {
  struct Partition {
    std::string task;  // "/job:ps/replica:0/task:0"
    WorkerInterface* worker = nullptr;
    tensorflow::GraphDef graph;
    // Canonical tensor names ("x:0") and node names, as registered with the worker.
    std::vector<std::string> feeds;
    std::vector<std::string> fetches;
    std::vector<std::string> targets;
    std::string graph_handle;  // set once registered
    // Sends to the master's own task that travel in this partition's RunGraph reply: the
    // sent tensor is fetch `fetch_index`; the master hands it to its own worker under `key`.
    struct InlinedSend {
      int fetch_index = 0;
      std::string key;
    };
    std::vector<InlinedSend> inlined_sends;
    // On the master's own partition: the keys of every inlined send, which its _Recv nodes
    // then wait for locally.
    std::vector<std::string> delivered_keys;
    // The second part of a cut partition (distributed/PushedReceives.h): the keys of the
    // tensors it waits for, which the master takes from `pushed_from` (its own worker) and
    // sends in this partition's RunGraph request, issued once they are all there.
    std::vector<std::string> pushed_keys;
    WorkerInterface* pushed_from = nullptr;
  };
  std::vector<Partition> partitions;
  // Each worker of the plan once, and those of them that keep something of a good step: a
  // partition there sends, or receives what the master does not hand it. Only they get a
  // CleanupGraph after a good step; the others forget the step by themselves.
  std::vector<WorkerInterface*> workers;
  std::vector<WorkerInterface*> workers_to_clean;
  // Keyed by the names exactly as the client wrote them.
  std::unordered_map<std::string, StepRoutes::Route> feed_routes;
  std::unordered_map<std::string, StepRoutes::Route> fetch_routes;
  // Per partition, where its fetches start in one flat numbering of every partition's
  // fetches (lets a step tell a tensor fetched twice from two tensors).
  std::vector<int> fetch_offset;
  int num_fetches = 0;
};

struct StepPlanInputs {
  // The session's graph, and the same built as a Graph (checked when it was created or
  // extended).
  const tensorflow::GraphDef* graph_def = nullptr;
  const Graph* graph = nullptr;
  StepSignature signature;  // as the client wrote it
  // The cluster's devices, the placer's options and the session's stateful placements;
  // the partitions are per task.
  CompileOptions compile;
  WorkerCache* workers = nullptr;
  // The master's own task; with `inline_send_bytes` > 0, small tensors that a partition which
  // receives nothing sends to this task come back in that partition's RunGraph reply.
  std::string local_task;
  int64_t inline_send_bytes = 0;
};

// Compiles and binds. Errors: NOT_FOUND for a name not in the graph, the placer's
// INVALID_ARGUMENT for impossible device requests.
StatusOr<std::shared_ptr<StepPlan>> BuildStepPlan(const StepPlanInputs& inputs);

// The rendezvous key of a _Send or _Recv node, from its attrs ("" when they do not say).
std::string RendezvousKeyOf(const tensorflow::NodeDef& node);

}  // namespace clab
