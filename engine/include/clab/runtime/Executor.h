// Runs one partition (the nodes of one device) for a fixed set of fed and fetched tensors:
// kernels are built once, then each Run schedules ready nodes on the thread pool, cheap ones
// inline, independent ones in parallel. A failing node aborts the step's rendezvous, so the
// other partitions of the step stop too. Graphs with while loops run their nodes in
// TensorFlow's execution frames (LoopStep.h); graphs without keep a plain, frameless step.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/runtime/Device.h"
#include "tensorflow/graph.pb.h"
#include "tensorflow/step_stats.pb.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace clab {

class Rendezvous;
class ThreadPool;

class Executor {
 public:
  struct Params {
    tensorflow::GraphDef graph;  // every node placed on `device`
    Device* device = nullptr;
    std::vector<std::string> feeds;     // tensor names ("node:0") whose values Run supplies
    std::vector<std::string> fetches;   // tensor names Run returns, in this order
    std::vector<std::string> targets;   // nodes that must run (their outputs are dropped)
    ThreadPool* thread_pool = nullptr;  // nullptr: ThreadPool::Default()
    // Every node runs on the thread that readied it, none on the pool (kernels still split
    // their own work over the pool's intra-op threads). For function bodies, which are
    // called from inside a kernel that may hold a pool thread itself: waiting there for
    // pool work could starve the pool, and a pool per function would cost threads.
    bool run_on_caller = false;
  };
  struct RunArgs {
    int64_t step_id = 0;
    Rendezvous* rendezvous = nullptr;  // required when the partition has _Send/_Recv
    std::vector<Tensor> feeds;         // in Params::feeds order
    bool collect_stats = false;        // fill DeviceStepStats (timeline)
    // Set (by whoever owns it, e.g. when the step's deadline passes): a while loop stops
    // before its next iteration and the step fails Cancelled. Must outlive the step.
    const std::atomic<bool>* cancelled = nullptr;
  };
  struct Result {
    Status status;
    std::vector<Tensor> fetches;  // in Params::fetches order
    tensorflow::DeviceStepStats stats;
  };
  using DoneCallback = std::function<void(Result)>;

  // Builds kernels and checks that every feed, fetch and target exists in the partition.
  static StatusOr<std::unique_ptr<Executor>> Create(Params params);
  virtual ~Executor() = default;

  virtual void RunAsync(RunArgs args, DoneCallback done) = 0;
  Result Run(RunArgs args);
};

}  // namespace clab
