// The bookkeeping both kinds of executor step share (the plain one and the one that runs while
// loops in execution frames): the run's arguments, the count of nodes still outstanding, the
// first failure, the timeline stats and handing the result to the caller. `Derived` has a
// Finish() that collects what it must and calls Deliver(); it runs once, after the last node.
#pragma once

#include "clab/core/ExceptionStatus.h"
#include "clab/runtime/Executor.h"
#include "clab/runtime/Rendezvous.h"
#include "runtime/ExecutorPlan.h"
#include "runtime/StepSupport.h"

#include <absl/strings/str_cat.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace clab {

template <class Derived>
class StepBase {
 protected:
  StepBase(const ExecutorPlan& plan, Executor::RunArgs& args, Executor::DoneCallback done)
      : plan_(plan), feeds_(std::move(args.feeds)), collect_stats_(args.collect_stats), done_(std::move(done)),
        fetches_(plan.num_fetches) {
    info_.step_id = args.step_id;
    info_.rendezvous = args.rendezvous;
    info_.thread_pool = plan.thread_pool;
    if (collect_stats_) stats_.set_device(plan.device->name());
  }

  // The first failure is the step's status; partitions waiting on this one's tensors stop too.
  void Fail(const Status& status) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!status_.ok()) return;
      status_ = status;
      aborted_.store(true, std::memory_order_release);
    }
    if (info_.rendezvous) info_.rendezvous->StartAbort(status);
  }

  void RecordStats(const ExecutorNode& item, const step_support::NodeTiming& timing, int64_t op_end_micros) {
    std::lock_guard<std::mutex> lock(stats_mu_);
    step_support::AddNodeStats(stats_, item, timing, op_end_micros);
  }

  // One node finished and `readied` more are now on a ready list of this thread.
  void NodeDone(int readied) {
    if (readied > 0) outstanding_.fetch_add(readied, std::memory_order_relaxed);
    if (outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1) static_cast<Derived*>(this)->Finish();
  }

  // The outputs of a node whose every needed output is fed.
  std::vector<EdgeValue> FedOutputs(const ExecutorNode& item) const {
    std::vector<EdgeValue> outputs(static_cast<size_t>(item.node->num_outputs()));
    for (size_t out = 0; out < outputs.size(); ++out) {
      if (item.feed_of_output[out] >= 0) outputs[out].tensor = feeds_[static_cast<size_t>(item.feed_of_output[out])];
    }
    return outputs;
  }

  // Starts `item`'s asynchronous kernel on `inputs`; `complete(status, outputs)` runs once,
  // when the kernel is done or when it threw before it finished (the node then fails with
  // what was thrown).
  template <class Complete>
  void StartAsyncKernel(const ExecutorNode& item, std::vector<EdgeValue> inputs, Complete complete) {
    // The context must outlive this call: the kernel finishes it later, maybe elsewhere.
    auto* ctx = new OpKernelContext(item.node->def(), plan_.device, info_, std::move(inputs), item.node->num_outputs());
    auto finished = std::make_shared<std::atomic<bool>>(false);
    auto done = [ctx, finished, complete = std::move(complete)]() mutable {
      if (finished->exchange(true)) return;
      Status status = ctx->status();
      std::vector<EdgeValue> outputs = std::move(ctx->outputs());
      delete ctx;
      complete(std::move(status), outputs);
    };
    try {
      item.kernel->ComputeAsync(ctx, done);
    } catch (...) {
      if (!finished->load()) {
        ctx->SetStatus(CurrentExceptionStatus(absl::StrCat(item.node->def().op(), " kernel")));
        done();
      }
    }
  }

  Status CurrentStatus() {
    std::lock_guard<std::mutex> lock(mu_);
    return status_;
  }

  // Hands `result` (with the fetches when it is ok, and the stats when they were collected)
  // to the caller; the step is deleted first, as the callback may start the next one.
  void Deliver(Executor::Result result) {
    if (result.status.ok()) result.fetches = std::move(fetches_);
    if (collect_stats_) result.stats = std::move(stats_);
    Executor::DoneCallback done = std::move(done_);
    delete static_cast<Derived*>(this);
    done(std::move(result));
  }

  const ExecutorPlan& plan_;
  std::vector<Tensor> feeds_;
  const bool collect_stats_;
  Executor::DoneCallback done_;
  StepInfo info_;
  std::vector<Tensor> fetches_;
  std::atomic<int> outstanding_{0};
  std::atomic<bool> aborted_{false};

  std::mutex mu_;  // guards status_ (and what a derived step adds to it)
  Status status_;

  std::mutex stats_mu_;
  tensorflow::DeviceStepStats stats_;
};

}  // namespace clab
