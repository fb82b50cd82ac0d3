#include "distributed/GrpcProbeService.h"

#include "distributed/GrpcStatus.h"

#include <grpcpp/grpcpp.h>

namespace clab {

grpc::ServerUnaryReactor* GrpcProbeService::Echo(grpc::CallbackServerContext* context, const EchoRequest* request,
                                                 EchoResponse* response) {
  response->set_payload(request->payload());
  auto* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* GrpcProbeService::Fetch(grpc::CallbackServerContext* context, const FetchRequest* request,
                                                  FetchResponse* response) {
  auto* reactor = context->DefaultReactor();
  if (request->bytes() < 0 || request->bytes() > kMaxFetchBytes) {
    reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                 "Fetch asks for " + std::to_string(request->bytes()) + " bytes; allowed: 0 to " +
                                     std::to_string(kMaxFetchBytes)));
    return reactor;
  }
  const size_t size = static_cast<size_t>(request->bytes());
  reactor->Finish(ToGrpcStatus(GuardedCall("Fetch", [&] {
    std::lock_guard<std::mutex> lock(mu_);
    if (payload_.size() < size) payload_.resize(size, '\x5a');
    response->set_payload(payload_.data(), size);
    return OkStatus();
  })));
  return reactor;
}

}  // namespace clab
