// What a plan knows of the while loops in its graph, worked out once: the execution frame
// each node runs in (the step's own frame, or the frame a loop's Enter nodes name with their
// frame_name attr, nested as the loops are), how each node moves values between frames and
// iterations (Enter into a child frame, Exit back to the parent, NextIteration on to the next
// iteration), and what a Merge waits for in each iteration. A malformed loop (an Exit or a
// NextIteration outside any loop, a node fed from two frames, a NextIteration that does not
// feed a Merge, nodes that only a cycle could start) is an error naming the node, here
// rather than a step that never ends. A plan without loop ops has no ExecutorFrames.
#pragma once

#include "clab/core/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace clab {

struct ExecutorPlan;

class ExecutorFrames {
 public:
  enum class Kind : uint8_t { kPlain, kEnter, kExit, kNextIteration, kMerge };

  struct NodeInfo {
    Kind kind = Kind::kPlain;
    bool is_control_trigger = false;  // runs even when its inputs are dead
    int frame = -1;                   // the static frame the node runs in (0: the step's own)
    // Enter: the frame it enters, and whether its value is the same in every iteration.
    int child_frame = -1;
    bool is_constant = false;
    // Merge: its control inputs, its data inputs from NextIteration (back edges) and others.
    int merge_controls = 0;
    int merge_back = 0;
    int merge_forward = 0;
  };

  struct FrameInfo {
    std::string name;  // the Enter nodes' frame_name ("" for the step's own frame)
    int parent = -1;
    int num_enters = 0;               // Enter nodes into the frame: it takes inputs until all ran
    int64_t parallel_iterations = 1;  // iterations that may run at once
  };

  // Null when the plan's graph has no Enter, Exit or NextIteration node. Needs the plan's
  // edges linked.
  static StatusOr<std::unique_ptr<ExecutorFrames>> Build(const ExecutorPlan& plan);

  const NodeInfo& node(int id) const { return nodes_[static_cast<size_t>(id)]; }
  const FrameInfo& frame(int id) const { return frames_[static_cast<size_t>(id)]; }
  // Per node, what it waits for as an iteration starts: every input edge, except a Merge,
  // which waits for its control inputs and then for one live data input.
  const std::vector<int>& initial_pending() const { return initial_pending_; }

  // The data inputs a Merge can receive in `iteration`: a loop's Merge gets its Enter value in
  // iteration 0 and its NextIteration value after that. All of them dead: the Merge is dead.
  int MergeExpected(const NodeInfo& info, int64_t iteration) const {
    if (info.merge_back == 0) return info.merge_forward;
    return iteration == 0 ? info.merge_forward : info.merge_back;
  }

  std::string FrameLabel(int id) const;

 private:
  Status Classify(const ExecutorPlan& plan);
  Status AssignFrames(const ExecutorPlan& plan);
  Status CheckLoops(const ExecutorPlan& plan) const;
  StatusOr<int> FrameOfEnter(const ExecutorPlan& plan, int enter, int parent);

  std::vector<NodeInfo> nodes_;
  std::vector<FrameInfo> frames_;
  std::vector<int> initial_pending_;
};

}  // namespace clab
