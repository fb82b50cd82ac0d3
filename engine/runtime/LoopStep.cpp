// TensorFlow's while-loop semantics, on ClusterLab's executor. A node's outputs go to the
// same frame and iteration as the node, except that an Enter's go to iteration 0 of the child
// frame its frame_name names (an is_constant Enter's to every iteration of it), a
// NextIteration's to the next iteration (starting it; held back while parallel_iterations
// iterations are running), and an Exit's to the parent frame. Deadness ends a loop: once
// LoopCond is false, the Switch's body output is dead, the dead value stops at NextIteration
// and the loop's iterations drain; a dead Exit of the newest iteration reaches the parent only
// when the whole frame is done. A Merge runs on its first live data input, or dead once every
// data input it can get in that iteration came dead. Every new iteration first checks the
// step's cancellation flag, so a loop that never ends stops with a clear status.
#include "runtime/LoopStep.h"

#include "clab/core/ExceptionStatus.h"
#include "clab/runtime/Rendezvous.h"
#include "clab/runtime/ThreadPool.h"
#include "core/WallClock.h"
#include "runtime/ExecutorPlan.h"
#include "runtime/FrameState.h"
#include "runtime/StepBase.h"
#include "runtime/StepSupport.h"

#include <absl/container/inlined_vector.h>

#include <atomic>
#include <map>
#include <mutex>
#include <tuple>

namespace clab {
namespace {

using namespace step_support;  // NOLINT(google-build-using-namespace)
using Kind = ExecutorFrames::Kind;

struct TaggedNode {
  int id;
  FrameState* frame;
  int64_t iteration;
  IterationState* state;
  bool dead;
};
using ReadyList = absl::InlinedVector<TaggedNode, 8>;

class LoopStep : public StepBase<LoopStep> {
 public:
  LoopStep(const ExecutorPlan& plan, Executor::RunArgs args, Executor::DoneCallback done)
      : StepBase(plan, args, std::move(done)), frames_(*plan.frames), cancelled_(args.cancelled) {
    root_.name = "";
    root_.iterations[0] = std::make_unique<IterationState>(frames_.initial_pending(), plan.num_input_slots);
  }

  void Start() {
    const ExecutorPlan& plan = plan_;  // the step may be gone before this loop ends
    if (plan.roots.empty()) return Finish();
    IterationState* state = root_.Iteration(0);
    state->outstanding_ops = static_cast<int>(plan.roots.size());
    outstanding_.store(static_cast<int>(plan.roots.size()));
    ReadyList ready;
    for (int root : plan.roots) {
      const TaggedNode node{root, &root_, 0, state, false};
      if (plan.RunsOnPool(root)) {
        ScheduleOnPool(node);
      } else {
        ready.push_back(node);
      }
    }
    if (!ready.empty()) Process(std::move(ready), /*on_pool_thread=*/false);
  }

 private:
  void ScheduleOnPool(const TaggedNode& node) {
    plan_.thread_pool->Schedule([this, node] { Process(ReadyList{node}, /*on_pool_thread=*/true); });
  }

  void Process(ReadyList ready, bool on_pool_thread) {
    while (!ready.empty()) {
      const TaggedNode node = ready.back();
      ready.pop_back();
      RunNode(node, ready, on_pool_thread);
    }
  }

  void RunNode(const TaggedNode& tagged, ReadyList& ready, bool on_pool_thread) {
    const ExecutorNode& item = plan_.nodes[static_cast<size_t>(tagged.id)];
    if (aborted_.load(std::memory_order_acquire)) return NodeDone(0);
    NodeTiming timing;
    if (collect_stats_) timing.start_micros = timing.op_start_micros = NowMicros();
    if (item.fed_only) {
      std::vector<EdgeValue> outputs = FedOutputs(item);
      return Complete(tagged, OkStatus(), outputs, timing, ready, on_pool_thread);
    }
    std::vector<EdgeValue> outputs(static_cast<size_t>(item.node->num_outputs()));
    // By pointer arithmetic: a plan whose nodes have no inputs at all has no slots.
    EdgeValue* slots = tagged.state->inputs.data() + item.input_start;
    if (tagged.dead) {
      for (int in = 0; in < item.num_inputs; ++in) slots[in] = EdgeValue();
      return Complete(tagged, OkStatus(), outputs, timing, ready, on_pool_thread);
    }
    std::vector<EdgeValue> inputs;
    Status gathered = GatherInputs(item, slots, tagged.state->dead_inputs.data() + item.input_start, &inputs);
    if (!gathered.ok()) return Complete(tagged, gathered, outputs, timing, ready, on_pool_thread);
    if (!item.is_async) {
      Status status = RunSyncKernel(plan_, tagged.id, info_, std::move(inputs), &outputs);
      return Complete(tagged, std::move(status), outputs, timing, ready, on_pool_thread);
    }
    StartAsyncKernel(item, std::move(inputs), [this, tagged, timing](Status status, std::vector<EdgeValue>& produced) {
      ReadyList next;
      Complete(tagged, std::move(status), produced, timing, next, /*on_pool_thread=*/false);
      if (!next.empty()) Process(std::move(next), /*on_pool_thread=*/false);
    });
  }

  void Complete(const TaggedNode& tagged, Status status, std::vector<EdgeValue>& outputs, const NodeTiming& timing,
                ReadyList& ready, bool on_pool_thread) {
    const ExecutorNode& item = plan_.nodes[static_cast<size_t>(tagged.id)];
    const int64_t op_end_micros = collect_stats_ ? NowMicros() : 0;
    std::vector<char> out_dead(outputs.size(), tagged.dead ? 1 : 0);
    if (!tagged.dead && status.ok() && !item.fed_only) {
      // A Switch leaves the branch not taken unproduced, a Merge of dead inputs its output;
      // the loop ops forward whatever came, so an empty output of theirs is dead too.
      const Kind kind = frames_.node(tagged.id).kind;
      const bool forwards =
          kind != Kind::kPlain || item.node->type_string() == "Switch" || item.node->type_string() == "RefSwitch";
      if (forwards)
        for (size_t out = 0; out < outputs.size(); ++out)
          out_dead[out] = !outputs[out].tensor.IsInitialized() && !outputs[out].ref;
    }
    if (status.ok() && !item.fed_only) status = OverrideFedAndCheck(item, feeds_, outputs, out_dead);
    // An Exit dead in an iteration that goes on does not leave the loop: nothing to fetch yet.
    const bool stays_in_loop = frames_.node(tagged.id).kind == Kind::kExit && !out_dead.empty() && out_dead[0];
    if (status.ok() && !stays_in_loop) status = CollectFetches(item, outputs, out_dead, fetches_);
    if (collect_stats_) RecordStats(item, timing, op_end_micros);
    if (!status.ok()) {
      Fail(WithNodeName(status, item.node->name()));
      outputs.clear();
      return NodeDone(0);
    }
    ReadyList readied;
    {
      std::lock_guard<std::mutex> lock(mu_);
      PropagateOutputs(tagged, outputs, out_dead, readied);
    }
    outputs.clear();
    int readied_here = 0;
    bool kept_expensive = false;
    const bool aborted = aborted_.load(std::memory_order_acquire);
    for (const TaggedNode& node : readied) {
      if (aborted) break;
      if (node.dead || !plan_.RunsOnPool(node.id)) {
        ready.push_back(node);
        ++readied_here;
      } else if (on_pool_thread && !kept_expensive && ready.empty()) {
        kept_expensive = true;
        ready.push_back(node);
        ++readied_here;
      } else {
        outstanding_.fetch_add(1, std::memory_order_relaxed);
        ScheduleOnPool(node);
      }
    }
    NodeDone(readied_here);
  }

  // ---- frames and iterations (under mu_) ----------------------------------------------------

  void PropagateOutputs(const TaggedNode& tagged, std::vector<EdgeValue>& outputs, const std::vector<char>& out_dead,
                        ReadyList& ready) {
    const ExecutorFrames::NodeInfo& info = frames_.node(tagged.id);
    FrameState* frame = tagged.frame;
    FrameState* out_frame = frame;
    int64_t out_iteration = tagged.iteration;
    bool send = true;
    const bool dead = tagged.dead || (!out_dead.empty() && out_dead[0]);
    switch (info.kind) {
      case Kind::kEnter:
        out_frame = ChildFrame(frame, tagged.iteration, info.child_frame);
        if (info.is_constant) AddInvariant(out_frame, tagged.id, outputs[0], dead, ready);
        --out_frame->pending_enters;
        out_iteration = 0;
        break;
      case Kind::kExit:
        if (dead) {
          if (tagged.iteration == frame->iteration_count) frame->dead_exits.push_back(tagged.id);
          send = false;
        } else {
          out_frame = frame->parent;
          out_iteration = frame->parent_iteration;
        }
        break;
      case Kind::kNextIteration:
        if (dead) {
          send = false;  // the loop ends here: deadness does not reach the next iteration
        } else if (tagged.iteration == frame->iteration_count && frame->outstanding_iterations >= frame->max_parallel) {
          frame->next_iteration_roots.push_back({tagged.id, outputs[0], false});
          send = false;
        } else {
          if (tagged.iteration == frame->iteration_count) send = StartIteration(frame, ready);
          out_iteration = tagged.iteration + 1;
        }
        break;
      default: break;
    }
    if (send) Activate(tagged.id, tagged.dead, out_frame, out_iteration, &outputs, out_dead, ready);
    --tagged.state->outstanding_ops;
    CleanUp(frame, tagged.iteration, ready);
    if (info.kind == Kind::kEnter) CleanUp(out_frame, 0, ready);
  }

  // Hands a node's outputs (none: all dead) to its consumers in frame:iteration.
  void Activate(int id, bool all_dead, FrameState* frame, int64_t iteration, std::vector<EdgeValue>* outputs,
                const std::vector<char>& out_dead, ReadyList& ready) {
    IterationState* state = frame->Iteration(iteration);
    const ExecutorNode& item = plan_.nodes[static_cast<size_t>(id)];
    for (const ExecutorNode::DataOut& out : item.data_out) {
      const auto src = static_cast<size_t>(out.src_output);
      const bool edge_dead = all_dead || !outputs || out_dead[src];
      const int dst = out.dst_node;
      const ExecutorFrames::NodeInfo& dst_info = frames_.node(dst);
      if (dst_info.kind == Kind::kMerge) {
        if (!edge_dead) {
          if (state->merge_live[static_cast<size_t>(dst)]) continue;  // only the first live input counts
          state->merge_live[static_cast<size_t>(dst)] = 1;
          state->inputs[static_cast<size_t>(out.dst_slot)] = (*outputs)[src];
          if (state->pending[static_cast<size_t>(dst)] == 0) Ready(dst, frame, iteration, state, false, ready);
        } else {
          const int dead_count = ++state->merge_dead[static_cast<size_t>(dst)];
          if (!state->merge_live[static_cast<size_t>(dst)] && state->pending[static_cast<size_t>(dst)] == 0 &&
              dead_count == frames_.MergeExpected(dst_info, iteration))
            Ready(dst, frame, iteration, state, true, ready);
        }
        continue;
      }
      if (edge_dead) {
        state->node_dead[static_cast<size_t>(dst)] = 1;
        state->dead_inputs[static_cast<size_t>(out.dst_slot)] = 1;
      } else {
        state->inputs[static_cast<size_t>(out.dst_slot)] = (*outputs)[src];
      }
      if (--state->pending[static_cast<size_t>(dst)] == 0)
        Ready(dst, frame, iteration, state, state->node_dead[static_cast<size_t>(dst)] && !dst_info.is_control_trigger,
              ready);
    }
    for (int dst : item.control_out) {
      const ExecutorFrames::NodeInfo& dst_info = frames_.node(dst);
      if (all_dead && dst_info.kind != Kind::kMerge) state->node_dead[static_cast<size_t>(dst)] = 1;
      if (--state->pending[static_cast<size_t>(dst)] != 0) continue;
      if (dst_info.kind != Kind::kMerge) {
        Ready(dst, frame, iteration, state, state->node_dead[static_cast<size_t>(dst)] && !dst_info.is_control_trigger,
              ready);
      } else if (state->merge_live[static_cast<size_t>(dst)]) {
        Ready(dst, frame, iteration, state, false, ready);
      } else if (state->merge_dead[static_cast<size_t>(dst)] == frames_.MergeExpected(dst_info, iteration)) {
        Ready(dst, frame, iteration, state, true, ready);
      }
    }
  }

  void Ready(int id, FrameState* frame, int64_t iteration, IterationState* state, bool dead, ReadyList& ready) {
    ++state->outstanding_ops;
    ready.push_back({id, frame, iteration, state, dead});
  }

  FrameState* ChildFrame(FrameState* parent, int64_t iteration, int static_id) {
    auto key = std::make_tuple(parent, iteration, static_id);
    auto it = children_.find(key);
    if (it != children_.end()) return it->second.get();
    const ExecutorFrames::FrameInfo& info = frames_.frame(static_id);
    auto frame = std::make_unique<FrameState>();
    frame->name = absl::StrCat(parent->name, ";", iteration, ";", info.name);
    frame->static_id = static_id;
    frame->parent = parent;
    frame->parent_iteration = iteration;
    frame->pending_enters = info.num_enters;
    frame->max_parallel = info.parallel_iterations;
    frame->iterations[0] = std::make_unique<IterationState>(frames_.initial_pending(), plan_.num_input_slots);
    ++parent->Iteration(iteration)->outstanding_frames;
    FrameState* raw = frame.get();
    children_.emplace(key, std::move(frame));
    return raw;
  }

  // Starts the frame's next iteration, unless the step was cancelled (then it fails).
  bool StartIteration(FrameState* frame, ReadyList& ready) {
    Status stop;
    if (cancelled_ && cancelled_->load(std::memory_order_acquire)) {
      stop = errors::Cancelled("The step was cancelled while ", frames_.FrameLabel(frame->static_id),
                               " was running (before its iteration ", frame->iteration_count + 1, ")");
    } else if (info_.rendezvous) {
      stop = info_.rendezvous->abort_status();  // another partition or task failed the step
    }
    if (!stop.ok()) {
      FailLocked(stop);
      frame->next_iteration_roots.clear();
      return false;
    }
    const int64_t next = ++frame->iteration_count;
    frame->iterations[next] = std::make_unique<IterationState>(frames_.initial_pending(), plan_.num_input_slots);
    ++frame->outstanding_iterations;
    frame->dead_exits.clear();
    std::vector<FrameState::Carried> held = std::move(frame->next_iteration_roots);
    frame->next_iteration_roots.clear();
    for (FrameState::Carried& carried : held) ActivateOne(carried, frame, next, ready);
    for (FrameState::Carried& carried : frame->invariants) ActivateOne(carried, frame, next, ready);
    return true;
  }

  void ActivateOne(const FrameState::Carried& carried, FrameState* frame, int64_t iteration, ReadyList& ready) {
    std::vector<EdgeValue> outputs{carried.value};
    const std::vector<char> out_dead{static_cast<char>(carried.dead ? 1 : 0)};
    Activate(carried.node, carried.dead, frame, iteration, &outputs, out_dead, ready);
  }

  void AddInvariant(FrameState* frame, int enter, const EdgeValue& value, bool dead, ReadyList& ready) {
    frame->invariants.push_back({enter, value, dead});
    for (int64_t i = 1; i <= frame->iteration_count; ++i) ActivateOne(frame->invariants.back(), frame, i, ready);
  }

  bool IterationDone(FrameState* frame, int64_t iteration) const {
    const IterationState* state = frame->Iteration(iteration);
    if (!state || state->outstanding_ops != 0 || state->outstanding_frames != 0) return false;
    return iteration == 0 ? frame->pending_enters == 0 : frame->Iteration(iteration - 1) == nullptr;
  }

  // Drops finished iterations (starting held-back ones), and a finished frame, whose dead
  // exits then reach the parent.
  void CleanUp(FrameState* frame, int64_t iteration, ReadyList& ready) {
    if (frame == &root_) return;  // the step's own frame ends with the step
    for (int64_t current = iteration; current <= frame->iteration_count && IterationDone(frame, current); ++current) {
      frame->iterations.erase(current);
      --frame->outstanding_iterations;
      if (!frame->next_iteration_roots.empty()) StartIteration(frame, ready);
    }
    if (frame->pending_enters != 0 || frame->outstanding_iterations != 0) return;
    FrameState* parent = frame->parent;
    const int64_t parent_iteration = frame->parent_iteration;
    const std::vector<int> dead_exits = std::move(frame->dead_exits);
    children_.erase(std::make_tuple(parent, parent_iteration, frame->static_id));  // deletes `frame`
    for (int exit : dead_exits) Activate(exit, true, parent, parent_iteration, nullptr, {}, ready);
    --parent->Iteration(parent_iteration)->outstanding_frames;
    CleanUp(parent, parent_iteration, ready);
  }

  // ---- the step's end -----------------------------------------------------------------------

  void FailLocked(const Status& status) {
    if (!status_.ok()) return;
    status_ = status;
    aborted_.store(true, std::memory_order_release);
    abort_rendezvous_ = true;
  }

  friend class StepBase<LoopStep>;
  void Finish() {
    Executor::Result result;
    bool abort_rendezvous = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      result.status = status_;
      abort_rendezvous = abort_rendezvous_;
    }
    if (abort_rendezvous && info_.rendezvous) info_.rendezvous->StartAbort(result.status);
    if (result.status.ok()) {
      for (const ExecutorNode& item : plan_.nodes) {
        for (const ExecutorNode::FetchOut& fetch : item.fetch_out) {
          if (fetches_[static_cast<size_t>(fetch.fetch_index)].IsInitialized()) continue;
          result.status = errors::Internal("Output ", fetch.src_output, " of node '", item.node->name(),
                                           "' was fetched but never produced: a while loop did not finish");
        }
      }
    }
    Deliver(std::move(result));
  }

  const ExecutorFrames& frames_;
  const std::atomic<bool>* cancelled_;

  // mu_ also guards the frames and their iterations.
  FrameState root_;
  std::map<std::tuple<const FrameState*, int64_t, int>, std::unique_ptr<FrameState>> children_;
  bool abort_rendezvous_ = false;
};

}  // namespace

void StartLoopStep(const ExecutorPlan& plan, Executor::RunArgs args, Executor::DoneCallback done) {
  (new LoopStep(plan, std::move(args), std::move(done)))->Start();
}

}  // namespace clab
