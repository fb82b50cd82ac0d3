// The master service on a task's gRPC server, with gRPC's callback API. RunStep hands its
// request to the Master and replies when the step is done, so no gRPC thread waits for a
// step. The other methods may wait on other tasks for a long time (CreateSession waits for
// the tasks it needs to start), so they run on their own threads.
//
//   GrpcMasterService service(&master);
//   builder.RegisterService(&service);
#pragma once

#include "distributed/CallThreads.h"

#include "distributed/Master.h"
#include "tensorflow/master.grpc.pb.h"

#include <functional>
#include <string_view>

namespace clab {

// Every method is served raw (RawUnaryCall): a request that does not parse gets a message
// naming the method rather than gRPC's bare UNIMPLEMENTED.
using GrpcMasterServiceBase = tensorflow::MasterService::WithRawCallbackMethod_CreateSession<
    tensorflow::MasterService::WithRawCallbackMethod_ExtendSession<
        tensorflow::MasterService::WithRawCallbackMethod_RunStep<
            tensorflow::MasterService::WithRawCallbackMethod_CloseSession<
                tensorflow::MasterService::WithRawCallbackMethod_ListDevices<
                    tensorflow::MasterService::WithRawCallbackMethod_Reset<
                        tensorflow::MasterService::WithRawCallbackMethod_PartialRunSetup<
                            tensorflow::MasterService::WithRawCallbackMethod_MakeCallable<
                                tensorflow::MasterService::WithRawCallbackMethod_RunCallable<
                                    tensorflow::MasterService::WithRawCallbackMethod_ReleaseCallable<
                                        tensorflow::MasterService::Service>>>>>>>>>>;

class GrpcMasterService final : public GrpcMasterServiceBase {
 public:
  // `master` must outlive the server this service is registered with.
  explicit GrpcMasterService(Master* master) : master_(master) {}
  // Waits for the calls still running on their own threads.
  ~GrpcMasterService() override;

  grpc::ServerUnaryReactor* CreateSession(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ExtendSession(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* RunStep(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                    grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* CloseSession(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListDevices(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* Reset(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                  grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* PartialRunSetup(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                            grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* MakeCallable(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* RunCallable(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ReleaseCallable(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                            grpc::ByteBuffer* response) override;

 private:
  // Parses the request, runs `call` on a thread of its own (RESOURCE_EXHAUSTED past
  // CallThreads' cap) and finishes the reply with its status; whatever it throws becomes a status naming `method`.
  // `call` sees the call's cancellation, so its waits end when the client goes away.
  template <typename Request, typename Response>
  grpc::ServerUnaryReactor* OffThread(std::string_view method, const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response,
                                      std::function<Status(const Request&, Response*, CallCancellation*)> call);

  Master* master_;
  CallThreads threads_;
};

}  // namespace clab
