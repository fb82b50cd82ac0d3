// Each step counts down, per node, the inputs still missing; a node whose count reaches
// zero is ready. Cheap ready nodes run at once on the thread that readied them; expensive
// ones go to the pool, except one that a pool thread keeps for itself when it has nothing
// else to do, which saves a hand-off per step on chains of expensive ops. A kernel is
// expensive when it says so and has not measured cheap on the steps before (the plan keeps
// a running average of its time): small MatMuls, adds and activations of a training step
// run inline instead of paying a thread hand-off each.
#include "clab/runtime/Executor.h"

#include "clab/core/ExceptionStatus.h"
#include "clab/runtime/Rendezvous.h"
#include "clab/runtime/ThreadPool.h"
#include "core/WallClock.h"
#include "runtime/ExecutorPlan.h"
#include "runtime/LoopStep.h"
#include "runtime/StepBase.h"
#include "runtime/StepSupport.h"

#include <absl/container/inlined_vector.h>
#include <absl/strings/match.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace clab {
namespace {

using ReadyList = absl::InlinedVector<int, 8>;
using namespace step_support;  // NOLINT(google-build-using-namespace)

// tf.cond's ops: a Switch leaves the output of the branch not taken unproduced (dead); a
// Merge runs with dead inputs and forwards a live one.
bool IsSwitch(const Node& node) { return node.type_string() == "Switch" || node.type_string() == "RefSwitch"; }
bool IsMerge(const Node& node) { return node.type_string() == "Merge" || node.type_string() == "RefMerge"; }

class Step : public StepBase<Step> {
 public:
  Step(const ExecutorPlan& plan, Executor::RunArgs args, Executor::DoneCallback done)
      : StepBase(plan, args, std::move(done)), pending_(new std::atomic<int>[plan.nodes.size()]),
        dead_control_(new std::atomic<bool>[plan.nodes.size()]), inputs_(static_cast<size_t>(plan.num_input_slots)),
        dead_inputs_(static_cast<size_t>(plan.num_input_slots), 0) {
    for (size_t i = 0; i < plan.nodes.size(); ++i) {
      pending_[i].store(plan.nodes[i].initial_pending, std::memory_order_relaxed);
      dead_control_[i].store(false, std::memory_order_relaxed);
    }
  }

  // Runs cheap roots on the calling thread; expensive ones start on the pool so that the
  // caller can go on to start the step's other partitions.
  void Start() {
    // The plan outlives the step, which may finish (and delete itself) on a pool thread
    // while this loop is still scheduling.
    const ExecutorPlan& plan = plan_;
    if (plan.roots.empty()) return Finish();
    outstanding_.store(static_cast<int>(plan.roots.size()));
    ReadyList ready;
    for (int root : plan.roots) {
      if (plan.RunsOnPool(root)) {
        ScheduleOnPool(root);
      } else {
        ready.push_back(root);
      }
    }
    if (!ready.empty()) Process(std::move(ready), /*on_pool_thread=*/false);
  }

 private:
  void ScheduleOnPool(int node) {
    plan_.thread_pool->Schedule([this, node] { Process(ReadyList{node}, /*on_pool_thread=*/true); });
  }

  // `ready` is local on purpose: once the last node is done the step deletes itself, and
  // no member may be touched after that.
  void Process(ReadyList ready, bool on_pool_thread) {
    while (!ready.empty()) {
      const int id = ready.back();
      ready.pop_back();
      RunNode(id, ready, on_pool_thread);
    }
  }

  void RunNode(int id, ReadyList& ready, bool on_pool_thread) {
    const ExecutorNode& item = plan_.nodes[static_cast<size_t>(id)];
    if (aborted_.load(std::memory_order_acquire)) return NodeDone(0);

    NodeTiming timing;
    if (collect_stats_) timing.start_micros = timing.op_start_micros = NowMicros();

    if (item.fed_only) {
      std::vector<EdgeValue> outputs = FedOutputs(item);
      return Complete(id, OkStatus(), outputs, timing, ready, on_pool_thread);
    }

    // On a branch not taken (a dead input, data or control) a node does not run and its
    // outputs are dead; only Merge looks at which of its inputs live (a dead one reaches it
    // as an empty value).
    if (!IsMerge(*item.node)) {
      bool dead = dead_control_[static_cast<size_t>(id)].load(std::memory_order_acquire);
      for (int in = 0; in < item.num_inputs; ++in)
        dead = dead || dead_inputs_[static_cast<size_t>(item.input_start + in)];
      if (dead) {
        for (int in = 0; in < item.num_inputs; ++in) inputs_[static_cast<size_t>(item.input_start + in)] = EdgeValue();
        std::vector<EdgeValue> outputs(static_cast<size_t>(item.node->num_outputs()));
        return Complete(id, OkStatus(), outputs, timing, ready, on_pool_thread, /*dead=*/true);
      }
    }

    std::vector<EdgeValue> inputs;
    // By pointer arithmetic: a plan whose nodes have no inputs at all has no slots.
    Status gathered =
        GatherInputs(item, inputs_.data() + item.input_start, dead_inputs_.data() + item.input_start, &inputs);
    if (!gathered.ok()) {
      inputs.clear();
      return Complete(id, gathered, inputs, timing, ready, on_pool_thread);
    }
    if (!item.is_async) {
      std::vector<EdgeValue> outputs;
      Status status = RunSyncKernel(plan_, id, info_, std::move(inputs), &outputs);
      return Complete(id, std::move(status), outputs, timing, ready, on_pool_thread);
    }

    StartAsyncKernel(item, std::move(inputs), [this, id, timing](Status status, std::vector<EdgeValue>& outputs) {
      ReadyList next;
      Complete(id, std::move(status), outputs, timing, next, /*on_pool_thread=*/false);
      // An empty list may mean the step just finished and is gone.
      if (!next.empty()) Process(std::move(next), /*on_pool_thread=*/false);
    });
  }

  // Checks the outputs, hands them to consumers and fetches, and readies the consumers.
  // Drops `outputs` before reporting the node done: nothing of the step may outlive it, as
  // a device's allocator may go away once the step's caller has its result.
  void Complete(int id, Status status, std::vector<EdgeValue>& outputs, const NodeTiming& timing, ReadyList& ready,
                bool on_pool_thread, bool dead = false) {
    const ExecutorNode& item = plan_.nodes[static_cast<size_t>(id)];
    const int64_t op_end_micros = collect_stats_ ? NowMicros() : 0;
    // Which outputs are dead: all of a node that did not run for a dead input; those a
    // Switch (the branch not taken) or a Merge of dead inputs did not produce.
    std::vector<char> out_dead(outputs.size(), dead ? 1 : 0);
    if (!dead && status.ok() && (IsMerge(*item.node) || IsSwitch(*item.node)))
      for (size_t out = 0; out < outputs.size(); ++out)
        out_dead[out] = !outputs[out].tensor.IsInitialized() && !outputs[out].ref;
    if (status.ok() && !item.fed_only) status = OverrideFedAndCheck(item, feeds_, outputs, out_dead);
    if (status.ok()) status = CollectFetches(item, outputs, out_dead, fetches_);
    if (!status.ok()) {
      Fail(WithNodeName(status, item.node->name()));
      if (collect_stats_) RecordStats(item, timing, op_end_micros);
      outputs.clear();
      return NodeDone(0);
    }

    for (const ExecutorNode::DataOut& out : item.data_out) {
      inputs_[static_cast<size_t>(out.dst_slot)] = outputs[static_cast<size_t>(out.src_output)];
      dead_inputs_[static_cast<size_t>(out.dst_slot)] = out_dead[static_cast<size_t>(out.src_output)];
    }

    int readied_here = 0;
    bool kept_expensive = false;
    auto wake = [&](int dst) {
      if (pending_[static_cast<size_t>(dst)].fetch_sub(1, std::memory_order_acq_rel) != 1) return;
      if (!plan_.RunsOnPool(dst)) {
        ready.push_back(dst);
        ++readied_here;
      } else if (on_pool_thread && !kept_expensive && ready.empty()) {
        kept_expensive = true;
        ready.push_back(dst);
        ++readied_here;
      } else {
        // Counted before it can run, so the step cannot be seen as finished meanwhile.
        outstanding_.fetch_add(1, std::memory_order_relaxed);
        ScheduleOnPool(dst);
      }
    };
    for (const ExecutorNode::DataOut& out : item.data_out) wake(out.dst_node);
    for (int dst : item.control_out) {
      if (dead) dead_control_[static_cast<size_t>(dst)].store(true, std::memory_order_release);
      wake(dst);
    }

    if (collect_stats_) RecordStats(item, timing, op_end_micros);
    outputs.clear();
    NodeDone(readied_here);
  }

  friend class StepBase<Step>;
  void Finish() {
    Executor::Result result;
    result.status = CurrentStatus();
    Deliver(std::move(result));
  }

  std::unique_ptr<std::atomic<int>[]> pending_;
  std::unique_ptr<std::atomic<bool>[]> dead_control_;  // a control input was dead
  std::vector<EdgeValue> inputs_;                      // every node's input slots, flat
  std::vector<char> dead_inputs_;                      // per input slot: a dead value arrives there
};

class LocalExecutor : public Executor {
 public:
  explicit LocalExecutor(std::unique_ptr<ExecutorPlan> plan) : plan_(std::move(plan)) {}

  void RunAsync(RunArgs args, DoneCallback done) override {
    Status checked = CheckFeeds(args);
    if (!checked.ok()) {
      Result result;
      result.status = checked;
      return done(std::move(result));
    }
    if (plan_->frames) return StartLoopStep(*plan_, std::move(args), std::move(done));
    (new Step(*plan_, std::move(args), std::move(done)))->Start();
  }

 private:
  Status CheckFeeds(const RunArgs& args) const {
    if (args.feeds.size() != plan_->feed_names.size())
      return errors::InvalidArgument("Expected ", plan_->feed_names.size(), " fed tensor(s), got ", args.feeds.size());
    for (size_t i = 0; i < args.feeds.size(); ++i) {
      if (args.feeds[i].dtype() != plan_->feed_types[i])
        return errors::InvalidArgument("Cannot feed a ", DataTypeName(args.feeds[i].dtype()), " tensor to '",
                                       plan_->feed_names[i], "', which has type ", DataTypeName(plan_->feed_types[i]));
    }
    return OkStatus();
  }

  std::unique_ptr<ExecutorPlan> plan_;
};

}  // namespace

StatusOr<std::unique_ptr<Executor>> Executor::Create(Params params) {
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<ExecutorPlan> plan, ExecutorPlan::Build(std::move(params)));
  return std::unique_ptr<Executor>(std::make_unique<LocalExecutor>(std::move(plan)));
}

Executor::Result Executor::Run(RunArgs args) {
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  Result result;
  RunAsync(std::move(args), [&](Result r) {
    std::lock_guard<std::mutex> lock(mu);
    result = std::move(r);
    finished = true;
    cv.notify_one();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return finished; });
  return result;
}

}  // namespace clab
