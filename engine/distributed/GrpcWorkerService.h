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

// Every method is served raw (RawUnaryCall, and RecvTensor with its own codec): a request
// that does not parse gets a message naming the method rather than gRPC's bare UNIMPLEMENTED.
using GrpcWorkerServiceBase = tensorflow::WorkerService::WithRawCallbackMethod_GetStatus<
    tensorflow::WorkerService::WithRawCallbackMethod_CreateWorkerSession<
        tensorflow::WorkerService::WithRawCallbackMethod_DeleteWorkerSession<
            tensorflow::WorkerService::WithRawCallbackMethod_RegisterGraph<
                tensorflow::WorkerService::WithRawCallbackMethod_DeregisterGraph<
                    tensorflow::WorkerService::WithRawCallbackMethod_RunGraph<
                        tensorflow::WorkerService::WithRawCallbackMethod_CleanupGraph<
                            tensorflow::WorkerService::WithRawCallbackMethod_RecvTensor<
                                tensorflow::WorkerService::Service>>>>>>>>;

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

 private:
  Worker* worker_;
};

}  // namespace clab
