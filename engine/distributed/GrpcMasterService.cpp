#include "distributed/GrpcMasterService.h"

#include "distributed/GrpcStatus.h"
#include "distributed/RawUnaryCall.h"

#include <memory>
#include <string>

namespace clab {

GrpcMasterService::~GrpcMasterService() { threads_.WaitIdle(); }

template <typename Request, typename Response>
grpc::ServerUnaryReactor* GrpcMasterService::OffThread(
    std::string_view method, const grpc::ByteBuffer* request, grpc::ByteBuffer* response,
    std::function<Status(const Request&, Response*, CallCancellation*)> call) {
  return RawUnaryCall<Request, Response>::Serve(
      method, request, response,
      [this, method = std::string(method), call = std::move(call)](const Request& parsed, Response* reply,
                                                                   CallCancellation* cancellation, auto finish) {
        // `finish` holds the parsed request and the reply until it is called; kept here too,
        // to answer if no thread can be had.
        auto shared_finish = std::make_shared<decltype(finish)>(std::move(finish));
        const Status started = threads_.Start(method, [&parsed, reply, cancellation, shared_finish, method, call] {
          (*shared_finish)(GuardedCall(method, [&] { return call(parsed, reply, cancellation); }));
        });
        if (!started.ok()) (*shared_finish)(started);
      });
}

grpc::ServerUnaryReactor* GrpcMasterService::CreateSession(grpc::CallbackServerContext* context,
                                                           const grpc::ByteBuffer* request,
                                                           grpc::ByteBuffer* response) {
  return OffThread<tensorflow::CreateSessionRequest, tensorflow::CreateSessionResponse>(
      "CreateSession", request, response, [this](const auto& parsed, auto* reply, CallCancellation* cancellation) {
        return master_->CreateSession(parsed, reply, cancellation);
      });
}

grpc::ServerUnaryReactor* GrpcMasterService::ExtendSession(grpc::CallbackServerContext* context,
                                                           const grpc::ByteBuffer* request,
                                                           grpc::ByteBuffer* response) {
  return OffThread<tensorflow::ExtendSessionRequest, tensorflow::ExtendSessionResponse>(
      "ExtendSession", request, response, [this](const auto& parsed, auto* reply, CallCancellation* cancellation) {
        return master_->ExtendSession(parsed, reply, cancellation);
      });
}

grpc::ServerUnaryReactor* GrpcMasterService::RunStep(grpc::CallbackServerContext* context,
                                                     const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  // No thread of its own: the Master answers when the step is done.
  return RawUnaryCall<tensorflow::RunStepRequest, tensorflow::RunStepResponse>::Serve(
      "RunStep", request, response,
      [this](const auto& parsed, auto* reply, CallCancellation* cancellation, auto finish) {
        const bool errors_in_body = parsed.store_errors_in_response_body();
        master_->RunStepAsync(
            parsed, reply,
            [reply, errors_in_body, finish = std::move(finish)](const Status& status) {
              // A client that asks for it (TensorFlow's sessions do) gets the error in the reply's
              // body, with whatever metadata the step gathered, and an OK call.
              if (!status.ok() && errors_in_body) {
                reply->set_status_code(static_cast<int32_t>(status.code()));
                reply->set_status_error_message(std::string(status.message()));
                return finish(OkStatus());
              }
              finish(status);
            },
            cancellation);
      });
}

grpc::ServerUnaryReactor* GrpcMasterService::CloseSession(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  return OffThread<tensorflow::CloseSessionRequest, tensorflow::CloseSessionResponse>(
      "CloseSession", request, response,
      [this](const auto& parsed, auto*, CallCancellation*) { return master_->CloseSession(parsed); });
}

grpc::ServerUnaryReactor* GrpcMasterService::ListDevices(grpc::CallbackServerContext* context,
                                                         const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  return OffThread<tensorflow::ListDevicesRequest, tensorflow::ListDevicesResponse>(
      "ListDevices", request, response,
      [this](const auto& parsed, auto* reply, CallCancellation*) { return master_->ListDevices(parsed, reply); });
}

grpc::ServerUnaryReactor* GrpcMasterService::Reset(grpc::CallbackServerContext* context,
                                                   const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  return OffThread<tensorflow::ResetRequest, tensorflow::ResetResponse>(
      "Reset", request, response,
      [this](const auto& parsed, auto*, CallCancellation*) { return master_->Reset(parsed); });
}

grpc::ServerUnaryReactor* GrpcMasterService::PartialRunSetup(grpc::CallbackServerContext* context,
                                                             const grpc::ByteBuffer* request,
                                                             grpc::ByteBuffer* response) {
  return OffThread<tensorflow::PartialRunSetupRequest, tensorflow::PartialRunSetupResponse>(
      "PartialRunSetup", request, response,
      [this](const auto& parsed, auto* reply, CallCancellation*) { return master_->PartialRunSetup(parsed, reply); });
}

grpc::ServerUnaryReactor* GrpcMasterService::MakeCallable(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  return OffThread<tensorflow::MakeCallableRequest, tensorflow::MakeCallableResponse>(
      "MakeCallable", request, response,
      [this](const auto& parsed, auto* reply, CallCancellation*) { return master_->MakeCallable(parsed, reply); });
}

grpc::ServerUnaryReactor* GrpcMasterService::RunCallable(grpc::CallbackServerContext* context,
                                                         const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  // Like RunStep, answered when the step is done.
  return RawUnaryCall<tensorflow::RunCallableRequest, tensorflow::RunCallableResponse>::Serve(
      "RunCallable", request, response, [this](const auto& parsed, auto* reply, CallCancellation*, auto finish) {
        master_->RunCallableAsync(parsed, reply, std::move(finish));
      });
}

grpc::ServerUnaryReactor* GrpcMasterService::ReleaseCallable(grpc::CallbackServerContext* context,
                                                             const grpc::ByteBuffer* request,
                                                             grpc::ByteBuffer* response) {
  return OffThread<tensorflow::ReleaseCallableRequest, tensorflow::ReleaseCallableResponse>(
      "ReleaseCallable", request, response,
      [this](const auto& parsed, auto*, CallCancellation*) { return master_->ReleaseCallable(parsed); });
}

}  // namespace clab
