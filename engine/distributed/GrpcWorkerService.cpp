#include "distributed/GrpcWorkerService.h"

#include "clab/runtime/ThreadPool.h"
#include "core/WallClock.h"
#include "distributed/CancellableReactor.h"
#include "distributed/GrpcStatus.h"
#include "distributed/RawUnaryCall.h"
#include "distributed/RecvTensorCodec.h"

#include <grpcpp/support/proto_buffer_reader.h>

#include <chrono>
#include <functional>
#include <string_view>

namespace clab {
namespace {

grpc::ServerUnaryReactor* FinishNow(grpc::CallbackServerContext* context, const Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

// A method the Worker answers at once: `call` runs on gRPC's thread.
template <typename Request, typename Response>
grpc::ServerUnaryReactor* AnswerNow(std::string_view method, const grpc::ByteBuffer* request,
                                    grpc::ByteBuffer* response, std::function<Status(const Request&, Response*)> call) {
  return RawUnaryCall<Request, Response>::Serve(
      method, request, response,
      [&call](const Request& parsed, Response* reply, CallCancellation*, auto finish) { finish(call(parsed, reply)); });
}

Status NotCollectiveWorker(const char* call, const std::string& task) {
  return errors::Unimplemented(call, ": ", task,
                               " runs no collective ops (CollectiveReduce, CollectiveBcast); "
                               "ClusterLab's graphs share variables through ps tasks");
}

}  // namespace

grpc::ServerUnaryReactor* GrpcWorkerService::GetStatus(grpc::CallbackServerContext* context,
                                                       const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  return AnswerNow<tensorflow::GetStatusRequest, tensorflow::GetStatusResponse>(
      "GetStatus", request, response, [this](const auto& parsed, auto* reply) {
        worker_->GetStatus(parsed, reply);
        return OkStatus();
      });
}

grpc::ServerUnaryReactor* GrpcWorkerService::CreateWorkerSession(grpc::CallbackServerContext* context,
                                                                 const grpc::ByteBuffer* request,
                                                                 grpc::ByteBuffer* response) {
  return AnswerNow<tensorflow::CreateWorkerSessionRequest, tensorflow::CreateWorkerSessionResponse>(
      "CreateWorkerSession", request, response,
      [this](const auto& parsed, auto*) { return worker_->CreateWorkerSession(parsed); });
}

grpc::ServerUnaryReactor* GrpcWorkerService::DeleteWorkerSession(grpc::CallbackServerContext* context,
                                                                 const grpc::ByteBuffer* request,
                                                                 grpc::ByteBuffer* response) {
  return AnswerNow<tensorflow::DeleteWorkerSessionRequest, tensorflow::DeleteWorkerSessionResponse>(
      "DeleteWorkerSession", request, response,
      [this](const auto& parsed, auto*) { return worker_->DeleteWorkerSession(parsed); });
}

grpc::ServerUnaryReactor* GrpcWorkerService::RegisterGraph(grpc::CallbackServerContext* context,
                                                           const grpc::ByteBuffer* request,
                                                           grpc::ByteBuffer* response) {
  // Building kernels for a big partition takes a while: done on the compute pool, so the
  // server's threads stay free for the steps of other sessions.
  return RawUnaryCall<tensorflow::RegisterGraphRequest, tensorflow::RegisterGraphResponse>::Serve(
      "RegisterGraph", request, response, [this](const auto& parsed, auto* reply, CallCancellation*, auto finish) {
        ThreadPool::Default()->Schedule([this, &parsed, reply, finish = std::move(finish)] {
          finish(GuardedCall("RegisterGraph", [&] { return worker_->RegisterGraph(parsed, reply); }));
        });
      });
}

grpc::ServerUnaryReactor* GrpcWorkerService::DeregisterGraph(grpc::CallbackServerContext* context,
                                                             const grpc::ByteBuffer* request,
                                                             grpc::ByteBuffer* response) {
  return AnswerNow<tensorflow::DeregisterGraphRequest, tensorflow::DeregisterGraphResponse>(
      "DeregisterGraph", request, response,
      [this](const auto& parsed, auto*) { return worker_->DeregisterGraph(parsed); });
}

grpc::ServerUnaryReactor* GrpcWorkerService::RunGraph(grpc::CallbackServerContext* context,
                                                      const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  // A client that cancels (or whose link dies) cancels the step's work on this task.
  return RawUnaryCall<tensorflow::RunGraphRequest, tensorflow::RunGraphResponse>::Serve(
      "RunGraph", request, response,
      [this](const auto& parsed, auto* reply, CallCancellation* cancellation, auto finish) {
        worker_->RunGraphAsync(parsed, reply, cancellation, std::move(finish));
      });
}

grpc::ServerUnaryReactor* GrpcWorkerService::CleanupGraph(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  return AnswerNow<tensorflow::CleanupGraphRequest, tensorflow::CleanupGraphResponse>(
      "CleanupGraph", request, response, [this](const auto& parsed, auto*) {
        worker_->CleanupGraph(parsed);
        return OkStatus();
      });
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
  const Status started = GuardedCall("RecvTensor", [&] {
    worker_->RecvTensorValueAsync(parsed.step_id(), parsed.rendezvous_key(), reactor->cancellation(),
                                  [reactor, response](const Status& status, const Tensor& value) {
                                    Status sent = status;
                                    if (sent.ok()) {
                                      sent = GuardedCall("RecvTensor reply", [&] {
                                        grpc::ByteBuffer encoded = EncodeRecvTensorResponse(value, false, NowMicros());
                                        response->Swap(&encoded);
                                        return OkStatus();
                                      });
                                    }
                                    reactor->FinishOnce(sent);
                                  });
    return OkStatus();
  });
  if (!started.ok()) reactor->FinishOnce(started);
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
