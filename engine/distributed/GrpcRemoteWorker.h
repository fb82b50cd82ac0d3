// A worker of another task, reached over a gRPC channel with the callback API: no thread
// waits for a reply. RecvTensor goes through the generic stub so that the reply's bytes are
// decoded straight into a new Tensor. Errors keep gRPC's code (numbered like absl's) and
// name the peer and its address.
#pragma once

#include "distributed/TrafficMeter.h"
#include "distributed/WorkerInterface.h"
#include "tensorflow/worker.grpc.pb.h"

#include <grpcpp/generic/generic_stub.h>

#include <memory>
#include <string>

namespace clab {

class GrpcRemoteWorker final : public WorkerInterface {
 public:
  // `task_name` ("/job:ps/replica:0/task:0") and `address` ("host:port") are for messages.
  // `traffic` (may be null) counts the bytes of RunGraph, RecvTensor and RegisterGraph.
  GrpcRemoteWorker(std::string task_name, std::string address, std::shared_ptr<grpc::Channel> channel,
                   std::shared_ptr<TrafficMeter> traffic = nullptr);
  ~GrpcRemoteWorker() override;

  // Requests and responses must stay valid until `done` runs. Calls in flight do not refer
  // to this object, so it may be destroyed before they complete.
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
  void CleanupAllAsync(const tensorflow::CleanupAllRequest& request, tensorflow::CleanupAllResponse* response,
                       int64_t deadline_ms, Done done) override;
  void CleanupGraphAsync(const tensorflow::CleanupGraphRequest& request, tensorflow::CleanupGraphResponse* response,
                         Done done) override;
  void RecvTensorAsync(const tensorflow::RecvTensorRequest& request, tensorflow::RecvTensorResponse* response,
                       CallCancellation* cancellation, Done done) override;
  void RecvTensorValueAsync(const tensorflow::RecvTensorRequest& request, Tensor* tensor, bool* is_dead,
                            CallCancellation* cancellation, Done done) override;

  const std::string& task_name() const { return task_name_; }
  const std::string& address() const { return address_; }

 private:
  struct Call;
  // Starts a call: `start(context, on_reply)` issues it on the stub. Completes at once,
  // without a call, when `cancellation` was cancelled already.
  template <typename StartFn>
  void Start(const char* method_name, int64_t deadline_ms, CallCancellation* cancellation, Done done, StartFn start);

  const std::string task_name_;
  const std::string address_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<tensorflow::WorkerService::Stub> stub_;
  std::unique_ptr<grpc::GenericStub> generic_stub_;
  std::shared_ptr<TrafficMeter> traffic_;
};

}  // namespace clab
