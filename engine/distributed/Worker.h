// The worker of one task: reports its devices, keeps per-session graphs registered by
// masters, runs them step by step, and serves the tensors its _Send nodes produce to peers
// (RecvTensor). Transport-free: GrpcWorkerService adapts it to gRPC and LocalWorker calls it
// directly from a master in the same process.
#pragma once

#include "clab/core/Status.h"
#include "clab/runtime/Device.h"
#include "distributed/WorkerInterface.h"
#include "tensorflow/worker.pb.h"

#include <functional>
#include <memory>
#include <string>

namespace clab {

class ThreadPool;

// Creates a WorkerCache for a session from the cluster the master sent; the server supplies
// it (gRPC channels to peers, this worker itself in process).
using WorkerCacheFactory =
    std::function<StatusOr<std::unique_ptr<WorkerCache>>(const tensorflow::ServerDef& server_def)>;

class Worker {
 public:
  Worker(std::string task_name, DeviceMgr* devices, WorkerCacheFactory cache_factory);
  ~Worker();

  const std::string& task_name() const { return task_name_; }
  DeviceMgr* devices() const { return devices_; }

  void GetStatus(const tensorflow::GetStatusRequest& request, tensorflow::GetStatusResponse* response);
  Status CreateWorkerSession(const tensorflow::CreateWorkerSessionRequest& request);
  Status DeleteWorkerSession(const tensorflow::DeleteWorkerSessionRequest& request);
  // Splits the task's partition per device, builds executors; answers a handle.
  Status RegisterGraph(const tensorflow::RegisterGraphRequest& request, tensorflow::RegisterGraphResponse* response);
  Status DeregisterGraph(const tensorflow::DeregisterGraphRequest& request);
  // Runs one step of a registered graph. An unknown session or graph handle is ABORTED
  // ("... this worker was probably restarted"), so the client's recovery takes over. A
  // graph registered without feed names takes the request's sends by rendezvous key, and
  // recv_key fetches what its _Send nodes left in the step's rendezvous (TensorFlow's
  // masters drive workers that way).
  // With `fetched`, the fetched tensors are moved there (fetch order) and the response's
  // recv list stays empty; with `fed`, the fed tensors are taken from there (feed order)
  // instead of the request's sends: the in-process master's paths, without TensorProto
  // copies.
  void RunGraphAsync(const tensorflow::RunGraphRequest& request, tensorflow::RunGraphResponse* response,
                     CallCancellation* cancellation, std::function<void(const Status&)> done,
                     std::vector<Tensor>* fetched = nullptr, std::vector<Tensor>* fed = nullptr);
  void CleanupGraph(const tensorflow::CleanupGraphRequest& request);
  // Clears the named resource containers (none named: the default one) on every device of
  // this task: what a master's Reset asks of each task.
  Status CleanupAll(const tensorflow::CleanupAllRequest& request);
  // Turns step-stats logging on or off, clears it, and answers the stats of the steps asked
  // for (see StepStatsLog).
  void Logging(const tensorflow::LoggingRequest& request, tensorflow::LoggingResponse* response);
  // The in-process master hands over a tensor another task's RunGraph reply carried (see
  // RunGraphRequest.delivered_key); ABORTED when the step was already cleaned up.
  Status DeliverTensor(int64_t step_id, const std::string& key, const Tensor& value);
  // Waits for the step's _Send of the key; ABORTED when the key's incarnation is not this
  // task's (the sender restarted since the master placed the graph).
  void RecvTensorAsync(const tensorflow::RecvTensorRequest& request, tensorflow::RecvTensorResponse* response,
                       CallCancellation* cancellation, std::function<void(const Status&)> done);

  // RecvTensorAsync without the proto: hands over the sent tensor itself (shared, never
  // copied), for transports that encode the bytes themselves.
  void RecvTensorValueAsync(int64_t step_id, const std::string& rendezvous_key, CallCancellation* cancellation,
                            std::function<void(const Status&, const Tensor&)> done);

  // Fails every running step with `status` (server shutdown).
  void AbortAllSteps(const Status& status);

  // A step's state (its rendezvous) is dropped this long after its last RunGraph ended, or
  // after a peer's RecvTensor created it, when no CleanupGraph came (the master died or lost
  // the step). Default 60 s.
  void SetAbandonedStepTimeout(int64_t timeout_ms);
  // Steps whose state this worker holds (running, or waiting for CleanupGraph).
  size_t NumActiveSteps() const;
  // RunGraph calls of any step running here now.
  int NumRunsInFlight() const;
  // Why step `step_id` was aborted here (a cancelled call, a failed partition, a peer that
  // gave up); OK while it runs, and for a step this worker holds nothing of.
  Status StepAbortStatus(int64_t step_id) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string task_name_;
  DeviceMgr* devices_;
};

}  // namespace clab
