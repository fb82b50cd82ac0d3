// What an executor works out once per partition, so that each step only moves values:
// the kernels, where each node's inputs wait, whom each node wakes, which outputs are fed
// or fetched.
#pragma once

#include "clab/graph/Graph.h"
#include "clab/runtime/Executor.h"
#include "clab/runtime/FunctionLibrary.h"
#include "clab/runtime/OpKernel.h"
#include "runtime/ExecutorFrames.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace clab {

struct ExecutorNode {
  const Node* node = nullptr;
  std::unique_ptr<OpKernel> kernel;  // null when the node is not run (its outputs are fed)
  bool is_async = false;
  bool is_expensive = false;
  // Every output the step needs is fed: the node does not run, its feeds stand in.
  bool fed_only = false;

  int input_start = 0;  // first of this node's slots in the step's flat input array
  int num_inputs = 0;
  std::vector<bool> input_is_ref;
  // For each input fed by a reference: the variable behind it, named in errors.
  std::vector<const std::string*> input_variable;

  struct DataOut {
    int src_output;
    int dst_node;
    int dst_slot;  // index into the flat input array
  };
  std::vector<DataOut> data_out;
  std::vector<int> control_out;
  int initial_pending = 0;

  std::vector<int> feed_of_output;  // per output: index into the feeds, or -1
  struct FetchOut {
    int src_output;
    int fetch_index;
  };
  std::vector<FetchOut> fetch_out;
  std::vector<bool> output_needed;           // consumed or fetched: must be produced
  std::vector<std::string> output_variable;  // per ref output: the variable it refers to

  std::string timeline_label;
};

struct ExecutorPlan {
  static StatusOr<std::unique_ptr<ExecutorPlan>> Build(Executor::Params params);

  std::unique_ptr<Graph> graph;  // owns the nodes the kernels and contexts refer to
  // The functions of the graph's library, for kernels that call them (MapDataset's f).
  std::shared_ptr<const FunctionLibrary> functions;
  Device* device = nullptr;
  ThreadPool* thread_pool = nullptr;
  bool run_on_caller = false;  // see Executor::Params
  std::vector<ExecutorNode> nodes;
  std::vector<int> roots;
  int num_input_slots = 0;
  std::vector<std::string> feed_names;
  std::vector<DataType> feed_types;
  size_t num_fetches = 0;
  // The graph's while loops; null when it has none (the step then runs without frames).
  std::unique_ptr<ExecutorFrames> frames;

  // What each node's kernel took on recent steps (nanoseconds, a running average; -1 until
  // it has run). A kernel that calls itself expensive but measures cheap runs inline on
  // the thread that readied it: handing it to the pool would cost more than running it.
  // A hand-off measured about 20 to 25 us of CPU on a 2-vCPU VM (waking a pool thread and
  // the caller's wait; `clab bench train`: inline below 10 us -> 100 us took 86 us of CPU
  // off a global step of the digits MLP, about four hand-offs), so only kernels of more than
  // twice that go to the pool, where running beside other work can pay for it.
  std::unique_ptr<std::atomic<int32_t>[]> measured_nanos;
  static constexpr int32_t kInlineBelowNanos = 50000;

  bool RunsOnPool(int id) const {
    if (run_on_caller || !nodes[static_cast<size_t>(id)].is_expensive) return false;
    const int32_t measured = measured_nanos[static_cast<size_t>(id)].load(std::memory_order_relaxed);
    return measured < 0 || measured >= kInlineBelowNanos;
  }
  void RecordNanos(int id, int64_t nanos) const {
    std::atomic<int32_t>& slot = measured_nanos[static_cast<size_t>(id)];
    const int32_t sample = static_cast<int32_t>(std::min<int64_t>(nanos, INT32_MAX / 2));
    const int32_t old = slot.load(std::memory_order_relaxed);
    slot.store(old < 0 ? sample : static_cast<int32_t>((int64_t{old} * 3 + sample) / 4), std::memory_order_relaxed);
  }
};

}  // namespace clab
