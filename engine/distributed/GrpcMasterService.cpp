#include "distributed/GrpcMasterService.h"

#include "distributed/GrpcStatus.h"

#include <thread>

namespace clab {
namespace {

grpc::ServerUnaryReactor* FinishNow(grpc::CallbackServerContext* context, const Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

}  // namespace

GrpcMasterService::~GrpcMasterService() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [this] { return running_ == 0; });
}

grpc::ServerUnaryReactor* GrpcMasterService::OffThread(grpc::CallbackServerContext* context,
                                                       std::function<Status()> call) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++running_;
  }
  std::thread([this, reactor, call = std::move(call)] {
    reactor->Finish(ToGrpcStatus(call()));
    std::lock_guard<std::mutex> lock(mu_);
    if (--running_ == 0) idle_.notify_all();
  }).detach();
  return reactor;
}

grpc::ServerUnaryReactor* GrpcMasterService::CreateSession(grpc::CallbackServerContext* context,
                                                           const tensorflow::CreateSessionRequest* request,
                                                           tensorflow::CreateSessionResponse* response) {
  return OffThread(context, [this, request, response] { return master_->CreateSession(*request, response); });
}

grpc::ServerUnaryReactor* GrpcMasterService::ExtendSession(grpc::CallbackServerContext* context,
                                                           const tensorflow::ExtendSessionRequest* request,
                                                           tensorflow::ExtendSessionResponse* response) {
  return OffThread(context, [this, request, response] { return master_->ExtendSession(*request, response); });
}

grpc::ServerUnaryReactor* GrpcMasterService::RunStep(grpc::CallbackServerContext* context,
                                                     const tensorflow::RunStepRequest* request,
                                                     tensorflow::RunStepResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  master_->RunStepAsync(*request, response, [reactor, request, response](const Status& status) {
    // A client that asks for it (TensorFlow's sessions do) gets the error in the reply's
    // body, with whatever metadata the step gathered, and an OK call.
    if (!status.ok() && request->store_errors_in_response_body()) {
      response->set_status_code(static_cast<int32_t>(status.code()));
      response->set_status_error_message(std::string(status.message()));
      return reactor->Finish(grpc::Status::OK);
    }
    reactor->Finish(ToGrpcStatus(status));
  });
  return reactor;
}

grpc::ServerUnaryReactor* GrpcMasterService::CloseSession(grpc::CallbackServerContext* context,
                                                          const tensorflow::CloseSessionRequest* request,
                                                          tensorflow::CloseSessionResponse* response) {
  return OffThread(context, [this, request] { return master_->CloseSession(*request); });
}

grpc::ServerUnaryReactor* GrpcMasterService::ListDevices(grpc::CallbackServerContext* context,
                                                         const tensorflow::ListDevicesRequest* request,
                                                         tensorflow::ListDevicesResponse* response) {
  return OffThread(context, [this, request, response] { return master_->ListDevices(*request, response); });
}

grpc::ServerUnaryReactor* GrpcMasterService::Reset(grpc::CallbackServerContext* context,
                                                   const tensorflow::ResetRequest* request,
                                                   tensorflow::ResetResponse* response) {
  return OffThread(context, [this, request] { return master_->Reset(*request); });
}

grpc::ServerUnaryReactor* GrpcMasterService::PartialRunSetup(grpc::CallbackServerContext* context,
                                                             const tensorflow::PartialRunSetupRequest* request,
                                                             tensorflow::PartialRunSetupResponse* response) {
  return OffThread(context, [this, request, response] { return master_->PartialRunSetup(*request, response); });
}

grpc::ServerUnaryReactor* GrpcMasterService::MakeCallable(grpc::CallbackServerContext* context,
                                                          const tensorflow::MakeCallableRequest* request,
                                                          tensorflow::MakeCallableResponse* response) {
  return OffThread(context, [this, request, response] { return master_->MakeCallable(*request, response); });
}

grpc::ServerUnaryReactor* GrpcMasterService::RunCallable(grpc::CallbackServerContext* context,
                                                         const tensorflow::RunCallableRequest* request,
                                                         tensorflow::RunCallableResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  master_->RunCallableAsync(*request, response,
                            [reactor](const Status& status) { reactor->Finish(ToGrpcStatus(status)); });
  return reactor;
}

grpc::ServerUnaryReactor* GrpcMasterService::ReleaseCallable(grpc::CallbackServerContext* context,
                                                             const tensorflow::ReleaseCallableRequest* request,
                                                             tensorflow::ReleaseCallableResponse* response) {
  return FinishNow(context, master_->ReleaseCallable(*request));
}

}  // namespace clab
