#include "distributed/GrpcWorkerService.h"

#include "clab/runtime/ThreadPool.h"
#include "core/WallClock.h"
#include "distributed/GrpcStatus.h"
#include "distributed/RecvTensorCodec.h"

#include <grpcpp/support/proto_buffer_reader.h>

#include <chrono>

namespace clab {
namespace {

// A reply that comes later; a client that cancels (or whose link dies) cancels the work.
class CancellableReactor final : public grpc::ServerUnaryReactor {
 public:
  CallCancellation* cancellation() { return &cancellation_; }
  void OnCancel() override { cancellation_.Cancel(); }
  void OnDone() override { delete this; }

 private:
  CallCancellation cancellation_;
};

grpc::ServerUnaryReactor* FinishNow(grpc::CallbackServerContext* context, const Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

Status NotCollectiveWorker(const char* call, const std::string& task) {
  return errors::Unimplemented(call, ": ", task,
                               " runs no collective ops (CollectiveReduce, CollectiveBcast); "
                               "ClusterLab's graphs share variables through ps tasks");
}

}  // namespace

grpc::ServerUnaryReactor* GrpcWorkerService::GetStatus(grpc::CallbackServerContext* context,
                                                       const tensorflow::GetStatusRequest* request,
                                                       tensorflow::GetStatusResponse* response) {
  worker_->GetStatus(*request, response);
  return FinishNow(context, OkStatus());
}

grpc::ServerUnaryReactor* GrpcWorkerService::CreateWorkerSession(grpc::CallbackServerContext* context,
                                                                 const tensorflow::CreateWorkerSessionRequest* request,
                                                                 tensorflow::CreateWorkerSessionResponse* response) {
  return FinishNow(context, worker_->CreateWorkerSession(*request));
}

grpc::ServerUnaryReactor* GrpcWorkerService::DeleteWorkerSession(grpc::CallbackServerContext* context,
                                                                 const tensorflow::DeleteWorkerSessionRequest* request,
                                                                 tensorflow::DeleteWorkerSessionResponse* response) {
  return FinishNow(context, worker_->DeleteWorkerSession(*request));
}

grpc::ServerUnaryReactor* GrpcWorkerService::RegisterGraph(grpc::CallbackServerContext* context,
                                                           const tensorflow::RegisterGraphRequest* request,
                                                           tensorflow::RegisterGraphResponse* response) {
  // Building kernels for a big partition takes a while: done on the compute pool, so the
  // server's threads stay free for the steps of other sessions.
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  ThreadPool::Default()->Schedule([this, reactor, request, response] {
    reactor->Finish(ToGrpcStatus(worker_->RegisterGraph(*request, response)));
  });
  return reactor;
}

grpc::ServerUnaryReactor* GrpcWorkerService::DeregisterGraph(grpc::CallbackServerContext* context,
                                                             const tensorflow::DeregisterGraphRequest* request,
                                                             tensorflow::DeregisterGraphResponse* response) {
  return FinishNow(context, worker_->DeregisterGraph(*request));
}

grpc::ServerUnaryReactor* GrpcWorkerService::RunGraph(grpc::CallbackServerContext* context,
                                                      const tensorflow::RunGraphRequest* request,
                                                      tensorflow::RunGraphResponse* response) {
  auto* reactor = new CancellableReactor;
  worker_->RunGraphAsync(*request, response, reactor->cancellation(),
                         [reactor](const Status& status) { reactor->Finish(ToGrpcStatus(status)); });
  return reactor;
}

grpc::ServerUnaryReactor* GrpcWorkerService::CleanupGraph(grpc::CallbackServerContext* context,
                                                          const tensorflow::CleanupGraphRequest* request,
                                                          tensorflow::CleanupGraphResponse* response) {
  worker_->CleanupGraph(*request);
  return FinishNow(context, OkStatus());
}

grpc::ServerUnaryReactor* GrpcWorkerService::RecvTensor(grpc::CallbackServerContext* context,
                                                        const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  tensorflow::RecvTensorRequest parsed;
  {
    // The request is a few dozen bytes; the reader only borrows the buffer's slices.
    grpc::ByteBuffer borrowed(*request);
    grpc::ProtoBufferReader reader(&borrowed);
    if (!parsed.ParseFromZeroCopyStream(&reader))
      return FinishNow(context, errors::InvalidArgument("RecvTensor: the request is not a RecvTensorRequest"));
  }
  auto* reactor = new CancellableReactor;
  worker_->RecvTensorValueAsync(parsed.step_id(), parsed.rendezvous_key(), reactor->cancellation(),
                                [reactor, response](const Status& status, const Tensor& value) {
                                  if (status.ok()) {
                                    grpc::ByteBuffer encoded = EncodeRecvTensorResponse(value, false, NowMicros());
                                    response->Swap(&encoded);
                                  }
                                  reactor->Finish(ToGrpcStatus(status));
                                });
  return reactor;
}

grpc::ServerUnaryReactor* GrpcWorkerService::CleanupAll(grpc::CallbackServerContext* context,
                                                        const tensorflow::CleanupAllRequest* request,
                                                        tensorflow::CleanupAllResponse* response) {
  return FinishNow(context, worker_->CleanupAll(*request));
}

grpc::ServerUnaryReactor* GrpcWorkerService::Logging(grpc::CallbackServerContext* context,
                                                     const tensorflow::LoggingRequest* request,
                                                     tensorflow::LoggingResponse* response) {
  worker_->Logging(*request, response);
  return FinishNow(context, OkStatus());
}

grpc::ServerUnaryReactor* GrpcWorkerService::Tracing(grpc::CallbackServerContext* context,
                                                     const tensorflow::TracingRequest* request,
                                                     tensorflow::TracingResponse* response) {
  return FinishNow(context, errors::Unimplemented("Tracing: ", worker_->task_name(),
                                                  " has no profiler service; ask for step stats with "
                                                  "RunOptions.trace_level FULL_TRACE or Logging"));
}

grpc::ServerUnaryReactor* GrpcWorkerService::RecvBuf(grpc::CallbackServerContext* context,
                                                     const tensorflow::RecvBufRequest* request,
                                                     tensorflow::RecvBufResponse* response) {
  return FinishNow(context, NotCollectiveWorker("RecvBuf", worker_->task_name()));
}

grpc::ServerUnaryReactor* GrpcWorkerService::CompleteGroup(grpc::CallbackServerContext* context,
                                                           const tensorflow::CompleteGroupRequest* request,
                                                           tensorflow::CompleteGroupResponse* response) {
  return FinishNow(context, NotCollectiveWorker("CompleteGroup", worker_->task_name()));
}

grpc::ServerUnaryReactor* GrpcWorkerService::CompleteInstance(grpc::CallbackServerContext* context,
                                                              const tensorflow::CompleteInstanceRequest* request,
                                                              tensorflow::CompleteInstanceResponse* response) {
  return FinishNow(context, NotCollectiveWorker("CompleteInstance", worker_->task_name()));
}

grpc::ServerUnaryReactor* GrpcWorkerService::GetStepSequence(grpc::CallbackServerContext* context,
                                                             const tensorflow::GetStepSequenceRequest* request,
                                                             tensorflow::GetStepSequenceResponse* response) {
  return FinishNow(context, NotCollectiveWorker("GetStepSequence", worker_->task_name()));
}

grpc::ServerUnaryReactor* GrpcWorkerService::MarkRecvFinished(grpc::CallbackServerContext* context,
                                                              const tensorflow::MarkRecvFinishedRequest* request,
                                                              tensorflow::MarkRecvFinishedResponse* response) {
  return FinishNow(context, errors::Unimplemented("MarkRecvFinished: ", worker_->task_name(),
                                                  " never asks for receive acknowledgements (require_ack)"));
}

}  // namespace clab
