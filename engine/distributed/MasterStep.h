// One step of a master session: every partition of the plan runs at once on its task, the
// first failure cancels the others, and the fetched tensors come back in the client's
// order. Afterwards every task is told to drop the step's leftovers, without waiting.
#pragma once

#include "clab/core/Status.h"
#include "distributed/StepPlan.h"
#include "distributed/WorkerInterface.h"
#include "tensorflow/master.pb.h"
#include "tensorflow/worker.pb.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace clab {

class MasterStep : public std::enable_shared_from_this<MasterStep> {
 public:
  using Done = std::function<void(const Status&)>;

  struct Params {
    std::shared_ptr<const StepPlan> plan;
    std::string session_handle;
    // Both stay alive until `done` runs.
    const tensorflow::RunStepRequest* request = nullptr;
    tensorflow::RunStepResponse* response = nullptr;
    // When set (an in-process client), the fed tensors, one per request.feed() (whose
    // entries then carry names only), also alive until `done` runs: a worker in this
    // process takes them as they are, one on another task gets them encoded.
    const std::vector<Tensor>* feed_values = nullptr;
    // When set (an in-process client), the fetched tensors go here in the request's fetch
    // order and `response` carries none: local partitions hand over their tensors uncopied.
    std::vector<Tensor>* outputs = nullptr;
    // <= 0: no limit.
    int64_t timeout_ms = 0;
    // The client's call, when it has one: cancelling it (the client gave up or went away)
    // ends the step with CANCELLED. Alive until `done` runs.
    CallCancellation* client_cancellation = nullptr;
  };

  // `done` runs exactly once, on whichever thread finishes the step.
  static void Start(Params params, Done done);

  // Ends the step early with `status` (its deadline passed, the session is closing).
  void Abort(const Status& status);

 private:
  MasterStep(Params params, Done done);
  void IssuePartitions();
  void PartitionDone(size_t partition, Status status);
  // RunGraph of one partition (with its fetched tensors when it has inlined sends).
  void IssuePartition(size_t partition);
  // The second part of a cut partition: takes the tensors it waits for from the master's
  // own worker, then issues it with them in its request.
  void PushThenIssue(size_t partition);
  // Whether partition p's fetches come back as tensors (fetched_) rather than protos.
  bool UsesTensors(size_t partition) const;
  // Whether partition p's fed tensors are handed over as they are (fed_).
  bool HandsOverFeeds(size_t partition) const;
  // Hands the tensors that partition p's reply carried for other partitions to the master's
  // own worker (StepPlan::Partition::inlined_sends).
  Status DeliverInlinedSends(size_t partition);
  void Finish();
  Status StepStatus();
  Status CollectFetches();
  void CleanupOnWorkers(bool step_ok);

  Params params_;
  Done done_;
  int64_t step_id_ = 0;
  bool trace_ = false;
  std::vector<tensorflow::RunGraphRequest> requests_;
  std::vector<tensorflow::RunGraphResponse> responses_;
  std::vector<std::vector<Tensor>> fetched_;  // per partition, with Params::outputs
  std::vector<std::vector<Tensor>> fed_;      // per partition, with HandsOverFeeds
  CallCancellation cancellation_;
  std::atomic<int> pending_{0};
  int64_t timer_id_ = 0;
  int client_cancel_id_ = -1;

  std::mutex mu_;
  Status abort_status_;
  // Partition errors in the order they arrived.
  std::vector<std::pair<size_t, Status>> errors_;
};

}  // namespace clab
