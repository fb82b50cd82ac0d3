// How a master or a peer worker calls a worker: asynchronously, with the same messages
// whether the worker is in this process (direct calls) or behind gRPC.
#pragma once

#include "clab/core/Mutex.h"
#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "tensorflow/worker.pb.h"

#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace clab {

// Lets a caller cancel calls in flight (a step that failed elsewhere). Thread-safe.
class CallCancellation {
 public:
  // Runs `cancel` at once if already cancelled; returns an id for Deregister.
  int Register(std::function<void()> cancel);
  void Deregister(int id);
  void Cancel();
  bool cancelled() const;

 private:
  mutable Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  int next_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int, std::function<void()>> callbacks_ ABSL_GUARDED_BY(mu_);
};

class WorkerInterface {
 public:
  using Done = std::function<void(const Status&)>;
  virtual ~WorkerInterface() = default;

  // `deadline_ms` <= 0 means none. Calls complete on some thread, exactly once.
  virtual void GetStatusAsync(const tensorflow::GetStatusRequest& request, tensorflow::GetStatusResponse* response,
                              int64_t deadline_ms, Done done) = 0;
  virtual void CreateWorkerSessionAsync(const tensorflow::CreateWorkerSessionRequest& request,
                                        tensorflow::CreateWorkerSessionResponse* response, Done done) = 0;
  virtual void DeleteWorkerSessionAsync(const tensorflow::DeleteWorkerSessionRequest& request,
                                        tensorflow::DeleteWorkerSessionResponse* response, Done done) = 0;
  virtual void RegisterGraphAsync(const tensorflow::RegisterGraphRequest& request,
                                  tensorflow::RegisterGraphResponse* response, Done done) = 0;
  virtual void DeregisterGraphAsync(const tensorflow::DeregisterGraphRequest& request,
                                    tensorflow::DeregisterGraphResponse* response, Done done) = 0;
  virtual void RunGraphAsync(const tensorflow::RunGraphRequest& request, tensorflow::RunGraphResponse* response,
                             CallCancellation* cancellation, Done done) = 0;
  virtual void CleanupGraphAsync(const tensorflow::CleanupGraphRequest& request,
                                 tensorflow::CleanupGraphResponse* response, Done done) = 0;
  virtual void CleanupAllAsync(const tensorflow::CleanupAllRequest& request, tensorflow::CleanupAllResponse* response,
                               int64_t deadline_ms, Done done) = 0;
  virtual void RecvTensorAsync(const tensorflow::RecvTensorRequest& request, tensorflow::RecvTensorResponse* response,
                               CallCancellation* cancellation, Done done) = 0;

  // RecvTensor straight into a Tensor, without a TensorProto in between: the gRPC transport
  // decodes the wire bytes into the tensor's buffer and a worker in this process hands over
  // the sent tensor itself. The default goes through RecvTensorAsync and Tensor::FromProto.
  virtual void RecvTensorValueAsync(const tensorflow::RecvTensorRequest& request, Tensor* tensor, bool* is_dead,
                                    CallCancellation* cancellation, Done done);

  // RunGraph whose fetched tensors land in `fetched` (in the graph's fetch order) instead of
  // the response's TensorProtos: a worker in this process hands over the tensors themselves,
  // with no copy. The default runs RunGraphAsync and parses the protos.
  virtual void RunGraphWithTensorsAsync(const tensorflow::RunGraphRequest& request,
                                        tensorflow::RunGraphResponse* response, std::vector<Tensor>* fetched,
                                        CallCancellation* cancellation, Done done);

  // Whether calls reach a Worker in this process directly (LocalWorker), which can then take
  // tensors as they are instead of TensorProtos.
  virtual bool InProcess() const { return false; }
  // RunGraph with the fed tensors handed over in `fed` (the registered graph's feed order;
  // `request` then has no sends) and the fetched ones handed back in `fetched`: the path of
  // an in-process client whose master and worker share its process. Only a worker with
  // InProcess() takes it (UNIMPLEMENTED otherwise).
  virtual void RunGraphInProcessAsync(const tensorflow::RunGraphRequest& request,
                                      tensorflow::RunGraphResponse* response, std::vector<Tensor> fed,
                                      std::vector<Tensor>* fetched, CallCancellation* cancellation, Done done);

  // Puts `value` into this worker's rendezvous of step `step_id` under `key`: how the master
  // of this task hands over tensors that arrived in another partition's RunGraph reply.
  // Only a worker in the master's own process can take it (UNIMPLEMENTED otherwise).
  virtual Status DeliverTensor(int64_t step_id, const std::string& key, const Tensor& value);

  // Blocking helper built on the async call.
  Status GetStatus(const tensorflow::GetStatusRequest& request, tensorflow::GetStatusResponse* response,
                   int64_t deadline_ms);
};

// Task name ("/job:ps/replica:0/task:0") -> the worker to call. The own task is served in
// process; the others through gRPC channels created on first use and then kept.
class WorkerCache {
 public:
  virtual ~WorkerCache() = default;
  // NOT_FOUND naming the task when the cluster has no such task.
  virtual StatusOr<WorkerInterface*> GetWorker(const std::string& task_name) = 0;
  // "host:port" of a task, for messages.
  virtual std::string AddressOf(const std::string& task_name) const = 0;
  virtual std::vector<std::string> ListTasks() const = 0;
};

}  // namespace clab
