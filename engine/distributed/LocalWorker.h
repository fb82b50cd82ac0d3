// The worker of this task, called directly: what a master (or a peer's rendezvous) uses for
// its own task, so no step pays for gRPC or proto copies to talk to itself.
#pragma once

#include "distributed/Worker.h"
#include "distributed/WorkerInterface.h"

namespace clab {

class LocalWorker final : public WorkerInterface {
 public:
  explicit LocalWorker(Worker* worker) : worker_(worker) {}

  void GetStatusAsync(const tensorflow::GetStatusRequest& request, tensorflow::GetStatusResponse* response,
                      int64_t deadline_ms, Done done) override;
  void CreateWorkerSessionAsync(const tensorflow::CreateWorkerSessionRequest& request,
                                tensorflow::CreateWorkerSessionResponse* response, Done done) override;
  void DeleteWorkerSessionAsync(const tensorflow::DeleteWorkerSessionRequest& request,
                                tensorflow::DeleteWorkerSessionResponse* response, Done done) override;
  void RegisterGraphAsync(const tensorflow::RegisterGraphRequest& request, tensorflow::RegisterGraphResponse* response,
                          Done done) override;
  void DeregisterGraphAsync(const tensorflow::DeregisterGraphRequest& request,
                            tensorflow::DeregisterGraphResponse* response, Done done) override;
  void RunGraphAsync(const tensorflow::RunGraphRequest& request, tensorflow::RunGraphResponse* response,
                     CallCancellation* cancellation, Done done) override;
  void RunGraphWithTensorsAsync(const tensorflow::RunGraphRequest& request, tensorflow::RunGraphResponse* response,
                                std::vector<Tensor>* fetched, CallCancellation* cancellation, Done done) override;
  bool InProcess() const override { return true; }
  void RunGraphInProcessAsync(const tensorflow::RunGraphRequest& request, tensorflow::RunGraphResponse* response,
                              std::vector<Tensor> fed, std::vector<Tensor>* fetched, CallCancellation* cancellation,
                              Done done) override;
  Status DeliverTensor(int64_t step_id, const std::string& key, const Tensor& value) override {
    return worker_->DeliverTensor(step_id, key, value);
  }
  void CleanupGraphAsync(const tensorflow::CleanupGraphRequest& request, tensorflow::CleanupGraphResponse* response,
                         Done done) override;
  void CleanupAllAsync(const tensorflow::CleanupAllRequest& request, tensorflow::CleanupAllResponse* response,
                       int64_t deadline_ms, Done done) override {
    done(worker_->CleanupAll(request));
  }
  void RecvTensorAsync(const tensorflow::RecvTensorRequest& request, tensorflow::RecvTensorResponse* response,
                       CallCancellation* cancellation, Done done) override;
  // Hands over the sent tensor itself: no bytes are copied.
  void RecvTensorValueAsync(const tensorflow::RecvTensorRequest& request, Tensor* tensor, bool* is_dead,
                            CallCancellation* cancellation, Done done) override;

 private:
  Worker* worker_;
};

}  // namespace clab
