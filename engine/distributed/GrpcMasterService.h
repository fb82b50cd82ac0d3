// The master service on a task's gRPC server, with gRPC's callback API. RunStep hands its
// request to the Master and replies when the step is done, so no gRPC thread waits for a
// step. The other methods may wait on other tasks for a long time (CreateSession waits for
// the tasks it needs to start), so they run on their own threads.
//
//   GrpcMasterService service(&master);
//   builder.RegisterService(&service);
#pragma once

#include "distributed/Master.h"
#include "tensorflow/master.grpc.pb.h"

#include <condition_variable>
#include <functional>
#include <mutex>

namespace clab {

class GrpcMasterService final : public tensorflow::MasterService::CallbackService {
 public:
  // `master` must outlive the server this service is registered with.
  explicit GrpcMasterService(Master* master) : master_(master) {}
  // Waits for the calls still running on their own threads.
  ~GrpcMasterService() override;

  grpc::ServerUnaryReactor* CreateSession(grpc::CallbackServerContext* context,
                                          const tensorflow::CreateSessionRequest* request,
                                          tensorflow::CreateSessionResponse* response) override;
  grpc::ServerUnaryReactor* ExtendSession(grpc::CallbackServerContext* context,
                                          const tensorflow::ExtendSessionRequest* request,
                                          tensorflow::ExtendSessionResponse* response) override;
  grpc::ServerUnaryReactor* RunStep(grpc::CallbackServerContext* context, const tensorflow::RunStepRequest* request,
                                    tensorflow::RunStepResponse* response) override;
  grpc::ServerUnaryReactor* CloseSession(grpc::CallbackServerContext* context,
                                         const tensorflow::CloseSessionRequest* request,
                                         tensorflow::CloseSessionResponse* response) override;
  grpc::ServerUnaryReactor* ListDevices(grpc::CallbackServerContext* context,
                                        const tensorflow::ListDevicesRequest* request,
                                        tensorflow::ListDevicesResponse* response) override;
  grpc::ServerUnaryReactor* Reset(grpc::CallbackServerContext* context, const tensorflow::ResetRequest* request,
                                  tensorflow::ResetResponse* response) override;
  grpc::ServerUnaryReactor* PartialRunSetup(grpc::CallbackServerContext* context,
                                            const tensorflow::PartialRunSetupRequest* request,
                                            tensorflow::PartialRunSetupResponse* response) override;
  grpc::ServerUnaryReactor* MakeCallable(grpc::CallbackServerContext* context,
                                         const tensorflow::MakeCallableRequest* request,
                                         tensorflow::MakeCallableResponse* response) override;
  grpc::ServerUnaryReactor* RunCallable(grpc::CallbackServerContext* context,
                                        const tensorflow::RunCallableRequest* request,
                                        tensorflow::RunCallableResponse* response) override;
  grpc::ServerUnaryReactor* ReleaseCallable(grpc::CallbackServerContext* context,
                                            const tensorflow::ReleaseCallableRequest* request,
                                            tensorflow::ReleaseCallableResponse* response) override;

 private:
  // Runs `call` on a thread of its own and finishes the reply with its status.
  grpc::ServerUnaryReactor* OffThread(grpc::CallbackServerContext* context, std::function<Status()> call);

  Master* master_;
  std::mutex mu_;
  std::condition_variable idle_;
  int running_ = 0;
};

}  // namespace clab
