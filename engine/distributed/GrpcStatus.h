// Status to and from grpc::Status, for the services and the clients of the distributed
// runtime. The canonical codes are gRPC's, number for number, so only messages need care.
#pragma once

#include "clab/core/Status.h"

#include <grpcpp/support/status.h>

#include <functional>
#include <string_view>

namespace clab {

grpc::Status ToGrpcStatus(const Status& status);
// With `call` (e.g. "RunGraph to /job:ps/replica:0/task:0 at 127.0.0.1:2222"), the message
// ends in " (<call>)".
Status FromGrpcStatus(const grpc::Status& status, std::string_view call = {});

// Runs a handler's `call`; whatever it throws becomes a status naming `method` (a failed
// allocation RESOURCE_EXHAUSTED, a bad conversion INVALID_ARGUMENT), so that one request
// never ends the task.
Status GuardedCall(std::string_view method, const std::function<Status()>& call);

}  // namespace clab
