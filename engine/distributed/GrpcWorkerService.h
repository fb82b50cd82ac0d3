// The worker service on a task's gRPC server, with gRPC's callback API: every method hands
// its request to the Worker and returns, and the reply goes out when the Worker is done, so
// no gRPC thread waits for a step or a tensor. RecvTensor is served raw: its reply carries
// the sent tensor's own buffer (see RecvTensorCodec.h). A client that gives up on a call
// (cancellation, deadline, dead link) aborts what the call started.
//
//   GrpcWorkerService service(&worker);
//   builder.RegisterService(&service);
#pragma once

#include "distributed/Worker.h"
#include "tensorflow/worker.grpc.pb.h"

namespace clab {

// The methods a step uses are served raw (RawUnaryCall, and RecvTensor with its own codec): a
// request that does not parse gets a message naming the method rather than gRPC's bare
// UNIMPLEMENTED. CleanupAll, Logging and the calls ClusterLab does not implement are typed.
using GrpcWorkerServiceBase = tensorflow::WorkerService::WithRawCallbackMethod_GetStatus<
    tensorflow::WorkerService::WithRawCallbackMethod_CreateWorkerSession<
        tensorflow::WorkerService::WithRawCallbackMethod_DeleteWorkerSession<
            tensorflow::WorkerService::WithRawCallbackMethod_RegisterGraph<
                tensorflow::WorkerService::WithRawCallbackMethod_DeregisterGraph<
                    tensorflow::WorkerService::WithRawCallbackMethod_RunGraph<
                        tensorflow::WorkerService::WithRawCallbackMethod_CleanupGraph<
                            tensorflow::WorkerService::WithRawCallbackMethod_RecvTensor<
                                tensorflow::WorkerService::WithCallbackMethod_CleanupAll<
                                    tensorflow::WorkerService::WithCallbackMethod_Logging<
                                        tensorflow::WorkerService::WithCallbackMethod_Tracing<
                                            tensorflow::WorkerService::WithCallbackMethod_RecvBuf<
                                                tensorflow::WorkerService::WithCallbackMethod_CompleteGroup<
                                                    tensorflow::WorkerService::WithCallbackMethod_CompleteInstance<
                                                        tensorflow::WorkerService::WithCallbackMethod_GetStepSequence<
                                                            tensorflow::WorkerService::
                                                                WithCallbackMethod_MarkRecvFinished<
                                                                    tensorflow::WorkerService::Service>>>>>>>>>>>>>>>>;

class GrpcWorkerService final : public GrpcWorkerServiceBase {
 public:
  // `worker` must outlive the server this service is registered with.
  explicit GrpcWorkerService(Worker* worker) : worker_(worker) {}

  grpc::ServerUnaryReactor* GetStatus(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* CreateWorkerSession(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                                grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* DeleteWorkerSession(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                                grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* RegisterGraph(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* DeregisterGraph(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                            grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* RunGraph(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                     grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* CleanupGraph(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* RecvTensor(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* CleanupAll(grpc::CallbackServerContext* context,
                                       const tensorflow::CleanupAllRequest* request,
                                       tensorflow::CleanupAllResponse* response) override;
  grpc::ServerUnaryReactor* Logging(grpc::CallbackServerContext* context, const tensorflow::LoggingRequest* request,
                                    tensorflow::LoggingResponse* response) override;
  // Tracing (a profiler session) and TensorFlow's collective calls are answered
  // UNIMPLEMENTED, naming the call, as a worker without those services does.
  grpc::ServerUnaryReactor* Tracing(grpc::CallbackServerContext* context, const tensorflow::TracingRequest* request,
                                    tensorflow::TracingResponse* response) override;
  grpc::ServerUnaryReactor* RecvBuf(grpc::CallbackServerContext* context, const tensorflow::RecvBufRequest* request,
                                    tensorflow::RecvBufResponse* response) override;
  grpc::ServerUnaryReactor* CompleteGroup(grpc::CallbackServerContext* context,
                                          const tensorflow::CompleteGroupRequest* request,
                                          tensorflow::CompleteGroupResponse* response) override;
  grpc::ServerUnaryReactor* CompleteInstance(grpc::CallbackServerContext* context,
                                             const tensorflow::CompleteInstanceRequest* request,
                                             tensorflow::CompleteInstanceResponse* response) override;
  grpc::ServerUnaryReactor* GetStepSequence(grpc::CallbackServerContext* context,
                                            const tensorflow::GetStepSequenceRequest* request,
                                            tensorflow::GetStepSequenceResponse* response) override;
  grpc::ServerUnaryReactor* MarkRecvFinished(grpc::CallbackServerContext* context,
                                             const tensorflow::MarkRecvFinishedRequest* request,
                                             tensorflow::MarkRecvFinishedResponse* response) override;

 private:
  Worker* worker_;
};

}  // namespace clab
