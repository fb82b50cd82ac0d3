// Serves a unary method from its raw bytes. gRPC's typed callback methods answer a request
// whose bytes do not parse with UNIMPLEMENTED and an empty message; served raw, such a
// request is INVALID_ARGUMENT naming the method and the message it should have been. The
// typed request and response live with the call until it finishes, and whatever the
// handler throws becomes the call's status (GuardedCall).
#pragma once

#include "clab/core/Status.h"
#include "distributed/CancellableReactor.h"
#include "distributed/GrpcStatus.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/proto_buffer_reader.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace clab {

template <typename Request, typename Response>
class RawUnaryCall {
 public:
  // Called once the call's reply is decided, on any thread, exactly once.
  using Finish = std::function<void(const Status&)>;
  // Starts the work for `request`, filling `response`; the call's cancellation ends waits
  // when the client goes away.
  using Handler =
      std::function<void(const Request& request, Response* response, CallCancellation* cancellation, Finish finish)>;

  static grpc::ServerUnaryReactor* Serve(std::string_view method, const grpc::ByteBuffer* raw_request,
                                         grpc::ByteBuffer* raw_response, const Handler& handler) {
    auto* reactor = new CancellableReactor;
    auto call = std::make_shared<RawUnaryCall>();
    {
      // The reader only borrows the request's slices.
      grpc::ByteBuffer borrowed(*raw_request);
      grpc::ProtoBufferReader reader(&borrowed);
      if (!call->request_.ParseFromZeroCopyStream(&reader)) {
        reactor->FinishOnce(errors::InvalidArgument(method, ": the request (", raw_request->Length(),
                                                    " bytes) is not a valid ", Request::descriptor()->full_name()));
        return reactor;
      }
    }
    Finish finish = [reactor, call, raw_response, method = std::string(method)](const Status& status) {
      Status sent = status;
      if (sent.ok()) {
        bool own_buffer = false;
        const grpc::Status serialized =
            grpc::SerializationTraits<Response>::Serialize(call->response_, raw_response, &own_buffer);
        if (!serialized.ok()) sent = FromGrpcStatus(serialized, StrCat(method, " reply"));
      }
      reactor->FinishOnce(sent);
    };
    const Status started = GuardedCall(method, [&] {
      handler(call->request_, &call->response_, reactor->cancellation(), finish);
      return OkStatus();
    });
    if (!started.ok()) reactor->FinishOnce(started);
    return reactor;
  }

 private:
  Request request_;
  Response response_;
};

}  // namespace clab
