// One running instance of a while loop's execution frame within a step, and its iterations.
// A frame is made when the first of its Enter nodes runs (one instance per iteration of the
// enclosing frame, so nested loops get a fresh inner frame each outer iteration) and is done
// when all its Enter nodes ran and all its iterations finished. Each iteration holds its own
// copy of every node's pending count and input slots, so iterations may overlap (up to the
// loop's parallel_iterations). The step guards all of it with one mutex.
#pragma once

#include "clab/runtime/OpKernel.h"
#include "runtime/ExecutorFrames.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clab {

struct IterationState {
  IterationState(const std::vector<int>& initial_pending, int num_input_slots)
      : pending(initial_pending), node_dead(initial_pending.size(), 0), merge_live(initial_pending.size(), 0),
        merge_dead(initial_pending.size(), 0), inputs(static_cast<size_t>(num_input_slots)),
        dead_inputs(static_cast<size_t>(num_input_slots), 0) {}

  std::vector<int> pending;       // per node: inputs (a Merge: control inputs) still missing
  std::vector<char> node_dead;    // per node: a dead input or control input arrived
  std::vector<char> merge_live;   // per Merge: its live data input arrived (it runs once)
  std::vector<int> merge_dead;    // per Merge: dead data inputs that arrived
  std::vector<EdgeValue> inputs;  // every node's input slots, flat
  std::vector<char> dead_inputs;  // per input slot: a dead value arrived there
  int outstanding_ops = 0;        // nodes of this iteration ready or running
  int outstanding_frames = 0;     // child frames started in this iteration and not done
};

struct FrameState {
  // A value an Enter or NextIteration hands to iterations that do not exist yet.
  struct Carried {
    int node;
    EdgeValue value;
    bool dead;
  };

  std::string name;  // "<parent name>;<parent iteration>;<frame_name>", for messages
  int static_id = 0;
  FrameState* parent = nullptr;
  int64_t parent_iteration = 0;
  int pending_enters = 0;  // Enter nodes into this instance that have not run yet
  int64_t max_parallel = 1;

  int64_t iteration_count = 0;  // the newest iteration
  int outstanding_iterations = 1;
  std::map<int64_t, std::unique_ptr<IterationState>> iterations;
  std::vector<Carried> next_iteration_roots;  // NextIteration values held back by parallel_iterations
  std::vector<Carried> invariants;            // is_constant Enter values, given to every iteration
  std::vector<int> dead_exits;                // Exit nodes dead in the newest iteration

  IterationState* Iteration(int64_t iteration) const {
    auto it = iterations.find(iteration);
    return it == iterations.end() ? nullptr : it->second.get();
  }
};

}  // namespace clab
