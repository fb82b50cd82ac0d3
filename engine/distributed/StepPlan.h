// What the master builds once per (feeds, fetches, targets) signature: the graph pruned to
// what the run needs, placed on the cluster's devices and cut into one partition per task,
// with each fed and fetched tensor routed to the partition that owns it. After registration
// each partition also knows its worker's graph handle; steps then only move tensors.
#pragma once

#include "clab/core/Status.h"
#include "clab/runtime/Placer.h"
#include "distributed/WorkerInterface.h"
#include "tensorflow/graph.pb.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace clab {

// Which partition, and which of its feeds or fetches; partition -1 for a feed that nothing
// in the pruned graph reads.
struct PlanRoute {
  int partition = -1;
  int index = 0;
};

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
  std::unordered_map<std::string, PlanRoute> feed_routes;
  std::unordered_map<std::string, PlanRoute> fetch_routes;
  // Per partition, where its fetches start in one flat numbering of every partition's
  // fetches (lets a step tell a tensor fetched twice from two tensors).
  std::vector<int> fetch_offset;
  int num_fetches = 0;
};

struct StepPlanInputs {
  const tensorflow::GraphDef* graph = nullptr;
  // Unique names as the client wrote them.
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  const std::vector<AvailableDevice>* devices = nullptr;
  const std::unordered_map<std::string, uint64_t>* incarnations = nullptr;
  PlacerOptions placer;
  // Node name -> device for stateful nodes placed by earlier plans of the session: a
  // variable must stay where its state lives. Updated with this plan's placements.
  std::map<std::string, std::string>* stateful_placement = nullptr;
  WorkerCache* workers = nullptr;
  // The master's own task; with `inline_send_bytes` > 0, small tensors that a partition which
  // receives nothing sends to this task come back in that partition's RunGraph reply.
  std::string local_task;
  int64_t inline_send_bytes = 0;
};

// Prunes, places and partitions. Errors: NOT_FOUND for a name not in the graph, the
// placer's INVALID_ARGUMENT for impossible device requests.
StatusOr<std::shared_ptr<StepPlan>> BuildStepPlan(const StepPlanInputs& inputs);

// "/job:ps/replica:0/task:0" for "/job:ps/replica:0/task:0/device:CPU:0"; "" if unparsable.
std::string TaskOfDevice(const std::string& device);
// The rendezvous key of a _Send or _Recv node, from its attrs ("" when they do not say).
std::string RendezvousKeyOf(const tensorflow::NodeDef& node);

}  // namespace clab
