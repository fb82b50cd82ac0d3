#include "distributed/GrpcRemoteWorker.h"
#include "core/BoundedMillis.h"

#include "distributed/GrpcStatus.h"
#include "distributed/RecvTensorCodec.h"

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <grpcpp/support/slice.h>

#include <chrono>

namespace clab {
namespace {

constexpr char kRecvTensorMethod[] = "/tensorflow.WorkerService/RecvTensor";

}  // namespace

// Everything one call needs until its reply, owned by the reply callback (and by the
// cancellation while registered), never by the GrpcRemoteWorker.
struct GrpcRemoteWorker::Call {
  grpc::ClientContext context;
  std::string description;  // "RunGraph to /job:ps/replica:0/task:0 at 127.0.0.1:2222"
  CallCancellation* cancellation = nullptr;
  int cancel_id = -1;
  Done done;
  // Only RecvTensor uses these: the raw request and reply.
  grpc::ByteBuffer request_bytes;
  grpc::ByteBuffer reply_bytes;

  Status ToStatus(const grpc::Status& status) const { return FromGrpcStatus(status, description); }
  void Finish(const Status& status) {
    if (cancellation) cancellation->Deregister(cancel_id);
    done(status);
  }
};

GrpcRemoteWorker::GrpcRemoteWorker(std::string task_name, std::string address, std::shared_ptr<grpc::Channel> channel,
                                   std::shared_ptr<TrafficMeter> traffic)
    : task_name_(std::move(task_name)), address_(std::move(address)), channel_(std::move(channel)),
      stub_(tensorflow::WorkerService::NewStub(channel_)), generic_stub_(std::make_unique<grpc::GenericStub>(channel_)),
      traffic_(std::move(traffic)) {}

GrpcRemoteWorker::~GrpcRemoteWorker() = default;

template <typename StartFn>
void GrpcRemoteWorker::Start(const char* method_name, int64_t deadline_ms, CallCancellation* cancellation, Done done,
                             StartFn start) {
  const std::string description = StrCat(method_name, " to ", task_name_, " at ", address_);
  if (cancellation && cancellation->cancelled()) return done(errors::Cancelled(description, " was cancelled"));
  auto call = std::make_shared<Call>();
  call->description = description;
  call->done = std::move(done);
  if (deadline_ms > 0) call->context.set_deadline(std::chrono::system_clock::now() + BoundedMillis(deadline_ms));
  if (cancellation) {
    call->cancellation = cancellation;
    // TryCancel before the call starts is remembered by the context and applied at start.
    call->cancel_id = cancellation->Register([call] { call->context.TryCancel(); });
  }
  start(call);
}

void GrpcRemoteWorker::GetStatusAsync(const tensorflow::GetStatusRequest& request,
                                      tensorflow::GetStatusResponse* response, int64_t deadline_ms, Done done) {
  Start("GetStatus", deadline_ms, nullptr, std::move(done), [&](std::shared_ptr<Call> call) {
    stub_->async()->GetStatus(&call->context, &request, response,
                              [call](grpc::Status status) { call->Finish(call->ToStatus(status)); });
  });
}

void GrpcRemoteWorker::CreateWorkerSessionAsync(const tensorflow::CreateWorkerSessionRequest& request,
                                                tensorflow::CreateWorkerSessionResponse* response, Done done) {
  Start("CreateWorkerSession", 0, nullptr, std::move(done), [&](std::shared_ptr<Call> call) {
    stub_->async()->CreateWorkerSession(&call->context, &request, response,
                                        [call](grpc::Status status) { call->Finish(call->ToStatus(status)); });
  });
}

void GrpcRemoteWorker::DeleteWorkerSessionAsync(const tensorflow::DeleteWorkerSessionRequest& request,
                                                tensorflow::DeleteWorkerSessionResponse* response, Done done) {
  Start("DeleteWorkerSession", 0, nullptr, std::move(done), [&](std::shared_ptr<Call> call) {
    stub_->async()->DeleteWorkerSession(&call->context, &request, response,
                                        [call](grpc::Status status) { call->Finish(call->ToStatus(status)); });
  });
}

void GrpcRemoteWorker::RegisterGraphAsync(const tensorflow::RegisterGraphRequest& request,
                                          tensorflow::RegisterGraphResponse* response, Done done) {
  if (traffic_) traffic_->Add(task_name_, static_cast<int64_t>(request.ByteSizeLong()), 0);
  Start("RegisterGraph", 0, nullptr, std::move(done), [&](std::shared_ptr<Call> call) {
    stub_->async()->RegisterGraph(&call->context, &request, response,
                                  [call](grpc::Status status) { call->Finish(call->ToStatus(status)); });
  });
}

void GrpcRemoteWorker::DeregisterGraphAsync(const tensorflow::DeregisterGraphRequest& request,
                                            tensorflow::DeregisterGraphResponse* response, Done done) {
  Start("DeregisterGraph", 0, nullptr, std::move(done), [&](std::shared_ptr<Call> call) {
    stub_->async()->DeregisterGraph(&call->context, &request, response,
                                    [call](grpc::Status status) { call->Finish(call->ToStatus(status)); });
  });
}

void GrpcRemoteWorker::RunGraphAsync(const tensorflow::RunGraphRequest& request, tensorflow::RunGraphResponse* response,
                                     CallCancellation* cancellation, Done done) {
  if (traffic_) traffic_->Add(task_name_, static_cast<int64_t>(request.ByteSizeLong()), 0);
  Start("RunGraph", 0, cancellation, std::move(done), [&](std::shared_ptr<Call> call) {
    stub_->async()->RunGraph(&call->context, &request, response,
                             [call, response, traffic = traffic_, peer = task_name_](grpc::Status status) {
                               if (traffic && status.ok())
                                 traffic->Add(peer, 0, static_cast<int64_t>(response->ByteSizeLong()));
                               call->Finish(call->ToStatus(status));
                             });
  });
}

void GrpcRemoteWorker::CleanupGraphAsync(const tensorflow::CleanupGraphRequest& request,
                                         tensorflow::CleanupGraphResponse* response, Done done) {
  Start("CleanupGraph", 0, nullptr, std::move(done), [&](std::shared_ptr<Call> call) {
    stub_->async()->CleanupGraph(&call->context, &request, response,
                                 [call](grpc::Status status) { call->Finish(call->ToStatus(status)); });
  });
}

void GrpcRemoteWorker::CleanupAllAsync(const tensorflow::CleanupAllRequest& request,
                                       tensorflow::CleanupAllResponse* response, int64_t deadline_ms, Done done) {
  Start("CleanupAll", deadline_ms, nullptr, std::move(done), [&](std::shared_ptr<Call> call) {
    stub_->async()->CleanupAll(&call->context, &request, response,
                               [call](grpc::Status status) { call->Finish(call->ToStatus(status)); });
  });
}

void GrpcRemoteWorker::RecvTensorAsync(const tensorflow::RecvTensorRequest& request,
                                       tensorflow::RecvTensorResponse* response, CallCancellation* cancellation,
                                       Done done) {
  Start("RecvTensor", 0, cancellation, std::move(done), [&](std::shared_ptr<Call> call) {
    stub_->async()->RecvTensor(&call->context, &request, response,
                               [call](grpc::Status status) { call->Finish(call->ToStatus(status)); });
  });
}

void GrpcRemoteWorker::RecvTensorValueAsync(const tensorflow::RecvTensorRequest& request, Tensor* tensor, bool* is_dead,
                                            CallCancellation* cancellation, Done done) {
  Start("RecvTensor", 0, cancellation, std::move(done), [&](std::shared_ptr<Call> call) {
    grpc::Slice slice(request.SerializeAsString());
    call->request_bytes = grpc::ByteBuffer(&slice, 1);
    generic_stub_->UnaryCall(&call->context, kRecvTensorMethod, grpc::StubOptions(), &call->request_bytes,
                             &call->reply_bytes,
                             [call, tensor, is_dead, traffic = traffic_, peer = task_name_](grpc::Status status) {
                               if (traffic)
                                 traffic->Add(peer, static_cast<int64_t>(call->request_bytes.Length()),
                                              static_cast<int64_t>(call->reply_bytes.Length()));
                               Status result = call->ToStatus(status);
                               if (result.ok()) {
                                 result = DecodeRecvTensorResponse(&call->reply_bytes, tensor, is_dead);
                                 if (!result.ok()) result = errors::Annotate(result, call->description);
                               }
                               call->Finish(result);
                             });
  });
}

}  // namespace clab
