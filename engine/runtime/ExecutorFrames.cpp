#include "runtime/ExecutorFrames.h"

#include "clab/graph/AttrValues.h"
#include "runtime/ExecutorPlan.h"

#include <deque>

namespace clab {
namespace {

bool OpIs(const Node& node, const char* op) {
  const std::string& type = node.type_string();
  return type == op || (type.size() == 3 + std::char_traits<char>::length(op) && type.compare(0, 3, "Ref") == 0 &&
                        type.compare(3, std::string::npos, op) == 0);
}

std::string Describe(const Node& node) { return absl::StrCat("'", node.name(), "' (", node.type_string(), ")"); }

// A partition that receives tensors may hold a part of a loop placed across devices, which
// shows as a malformed loop here; the error says so.
Status WithSplitHint(const ExecutorPlan& plan, Status status) {
  if (status.ok()) return status;
  for (const ExecutorNode& item : plan.nodes) {
    if (item.node->type_string() != "_Recv") continue;
    return Status(status.code(), absl::StrCat(status.message(), " (the partition for ", plan.device->name(),
                                              " receives tensors from another device: ClusterLab runs a while "
                                              "loop only when all its nodes are on one device)"));
  }
  return status;
}

}  // namespace

std::string ExecutorFrames::FrameLabel(int id) const {
  if (id == 0) return "the step's own frame (outside every while loop)";
  return absl::StrCat("while loop frame '", frames_[static_cast<size_t>(id)].name, "'");
}

StatusOr<std::unique_ptr<ExecutorFrames>> ExecutorFrames::Build(const ExecutorPlan& plan) {
  bool has_loop_ops = false;
  for (const ExecutorNode& item : plan.nodes) {
    const Node& node = *item.node;
    has_loop_ops = has_loop_ops || OpIs(node, "Enter") || OpIs(node, "Exit") || OpIs(node, "NextIteration");
  }
  if (!has_loop_ops) return std::unique_ptr<ExecutorFrames>();
  auto frames = std::make_unique<ExecutorFrames>();
  CLAB_RETURN_IF_ERROR(frames->Classify(plan));
  CLAB_RETURN_IF_ERROR(WithSplitHint(plan, frames->AssignFrames(plan)));
  CLAB_RETURN_IF_ERROR(WithSplitHint(plan, frames->CheckLoops(plan)));
  return frames;
}

Status ExecutorFrames::Classify(const ExecutorPlan& plan) {
  const size_t count = plan.nodes.size();
  nodes_.assign(count, NodeInfo());
  initial_pending_.assign(count, 0);
  frames_.push_back(FrameInfo());  // the step's own frame
  for (size_t i = 0; i < count; ++i) {
    const Node& node = *plan.nodes[i].node;
    NodeInfo& info = nodes_[i];
    if (plan.nodes[i].fed_only) continue;  // fed values stand in: the node does not run
    if (OpIs(node, "Enter")) {
      info.kind = Kind::kEnter;
      if (!GetNodeAttr(node.def(), "is_constant", &info.is_constant).ok()) info.is_constant = false;
    } else if (OpIs(node, "Exit")) {
      info.kind = Kind::kExit;
    } else if (OpIs(node, "NextIteration")) {
      info.kind = Kind::kNextIteration;
    } else if (OpIs(node, "Merge")) {
      info.kind = Kind::kMerge;
    } else if (node.type_string() == "ControlTrigger") {
      info.is_control_trigger = true;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    const ExecutorNode& item = plan.nodes[i];
    const bool from_next = nodes_[i].kind == Kind::kNextIteration;
    for (const ExecutorNode::DataOut& out : item.data_out) {
      NodeInfo& dst = nodes_[static_cast<size_t>(out.dst_node)];
      if (dst.kind != Kind::kMerge) continue;
      (from_next ? dst.merge_back : dst.merge_forward) += 1;
    }
    for (int dst : item.control_out) {
      if (nodes_[static_cast<size_t>(dst)].kind == Kind::kMerge) ++nodes_[static_cast<size_t>(dst)].merge_controls;
    }
  }
  for (size_t i = 0; i < count; ++i)
    initial_pending_[i] = nodes_[i].kind == Kind::kMerge ? nodes_[i].merge_controls : plan.nodes[i].initial_pending;
  return OkStatus();
}

// The static frame an Enter leads into, made on first sight; every Enter naming it must come
// from the same parent frame.
StatusOr<int> ExecutorFrames::FrameOfEnter(const ExecutorPlan& plan, int enter, int parent) {
  const Node& node = *plan.nodes[static_cast<size_t>(enter)].node;
  std::string name;
  if (!GetNodeAttr(node.def(), "frame_name", &name).ok() || name.empty())
    return errors::InvalidArgument("While loop node ", Describe(node), " has no frame_name attr");
  int64_t parallel = 10;
  if (!GetNodeAttr(node.def(), "parallel_iterations", &parallel).ok()) parallel = 10;
  if (parallel < 1)
    return errors::InvalidArgument("While loop node ", Describe(node), " has parallel_iterations ", parallel,
                                   "; it must be at least 1");
  for (size_t f = 1; f < frames_.size(); ++f) {
    if (frames_[f].name != name) continue;
    if (frames_[f].parent != parent)
      return errors::InvalidArgument("While loop node ", Describe(node), " enters frame '", name, "' from ",
                                     FrameLabel(parent), ", but other Enter nodes enter it from ",
                                     FrameLabel(frames_[f].parent));
    ++frames_[f].num_enters;
    return static_cast<int>(f);
  }
  FrameInfo frame;
  frame.name = name;
  frame.parent = parent;
  frame.num_enters = 1;
  frame.parallel_iterations = parallel;
  frames_.push_back(std::move(frame));
  return static_cast<int>(frames_.size() - 1);
}

// Walks the graph from its roots: an Enter's consumers run in the frame it names, an Exit's
// in its frame's parent, every other node's in its producer's frame.
Status ExecutorFrames::AssignFrames(const ExecutorPlan& plan) {
  std::deque<int> queue;
  for (int root : plan.roots) {
    nodes_[static_cast<size_t>(root)].frame = 0;
    queue.push_back(root);
  }
  // Which node set each node's frame, named when another input disagrees.
  std::vector<int> set_by(nodes_.size(), -1);
  while (!queue.empty()) {
    const int id = queue.front();
    queue.pop_front();
    NodeInfo& info = nodes_[static_cast<size_t>(id)];
    const Node& node = *plan.nodes[static_cast<size_t>(id)].node;
    int out_frame = info.frame;
    if (info.kind == Kind::kEnter) {
      CLAB_ASSIGN_OR_RETURN(info.child_frame, FrameOfEnter(plan, id, info.frame));
      out_frame = info.child_frame;
    } else if (info.kind == Kind::kExit) {
      if (info.frame == 0)
        return errors::InvalidArgument("While loop node ", Describe(node),
                                       " is an Exit outside every while loop: no Enter node leads to it");
      out_frame = frames_[static_cast<size_t>(info.frame)].parent;
    } else if (info.kind == Kind::kNextIteration && info.frame == 0) {
      return errors::InvalidArgument("While loop node ", Describe(node),
                                     " is a NextIteration outside every while loop: no Enter node leads to it");
    }
    const ExecutorNode& item = plan.nodes[static_cast<size_t>(id)];
    auto visit = [&](int dst) -> Status {
      NodeInfo& target = nodes_[static_cast<size_t>(dst)];
      if (target.frame < 0) {
        target.frame = out_frame;
        set_by[static_cast<size_t>(dst)] = id;
        queue.push_back(dst);
        return OkStatus();
      }
      if (target.frame == out_frame) return OkStatus();
      const Node& other =
          *plan.nodes[static_cast<size_t>(set_by[static_cast<size_t>(dst)] >= 0 ? set_by[static_cast<size_t>(dst)]
                                                                                : dst)]
               .node;
      return errors::InvalidArgument("Node ", Describe(*plan.nodes[static_cast<size_t>(dst)].node),
                                     " takes inputs from two execution frames: from ", FrameLabel(target.frame),
                                     " through ", Describe(other), " and from ", FrameLabel(out_frame), " through ",
                                     Describe(node), " (mismatched while loop frames)");
    };
    for (const ExecutorNode::DataOut& out : item.data_out) CLAB_RETURN_IF_ERROR(visit(out.dst_node));
    for (int dst : item.control_out) CLAB_RETURN_IF_ERROR(visit(dst));
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].frame >= 0 || plan.nodes[i].fed_only) continue;
    return errors::InvalidArgument("Node ", Describe(*plan.nodes[i].node),
                                   " can never run: only a cycle leads to it (a while loop without an Enter node?)");
  }
  return OkStatus();
}

Status ExecutorFrames::CheckLoops(const ExecutorPlan& plan) const {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const ExecutorNode& item = plan.nodes[i];
    const NodeInfo& info = nodes_[i];
    if (info.kind == Kind::kNextIteration) {
      for (const ExecutorNode::DataOut& out : item.data_out) {
        const ExecutorNode& dst = plan.nodes[static_cast<size_t>(out.dst_node)];
        if (nodes_[static_cast<size_t>(out.dst_node)].kind != Kind::kMerge)
          return errors::InvalidArgument("While loop node ", Describe(*item.node), " feeds ", Describe(*dst.node),
                                         ": a NextIteration must feed a Merge");
      }
    }
    if (info.kind == Kind::kMerge && info.merge_back > 0 && info.merge_forward == 0)
      return errors::InvalidArgument("While loop node ", Describe(*item.node),
                                     " takes only NextIteration values: a loop's Merge needs its Enter value too");
    // Where the node's outputs go: an Exit's leave its loop, an Enter's go into one.
    const int out_frame = info.kind == Kind::kExit    ? frames_[static_cast<size_t>(info.frame)].parent
                          : info.kind == Kind::kEnter ? info.child_frame
                                                      : info.frame;
    if (out_frame > 0 && !item.fetch_out.empty())
      return errors::InvalidArgument("Cannot fetch an output of node ", Describe(*item.node), ": its value lives in ",
                                     FrameLabel(out_frame), "; fetch the value that leaves the loop through its Exit");
  }
  return OkStatus();
}

}  // namespace clab
