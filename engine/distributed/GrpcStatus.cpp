#include "distributed/GrpcStatus.h"

#include "clab/core/ExceptionStatus.h"

namespace clab {

grpc::Status ToGrpcStatus(const Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

Status FromGrpcStatus(const grpc::Status& status, std::string_view call) {
  if (status.ok()) return OkStatus();
  const auto code = static_cast<absl::StatusCode>(status.error_code());
  std::string message = status.error_message();
  // gRPC says "Received/Sent message larger than max (N vs. M)"; say which setting that is.
  if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
      message.find("message larger than max") != std::string::npos)
    message = StrCat(message, ": the message exceeds the cluster's message limit (--max_message_bytes)");
  if (call.empty()) return Status(code, message);
  return Status(code, StrCat(message, " (", call, ")"));
}

Status GuardedCall(std::string_view method, const std::function<Status()>& call) {
  try {
    return call();
  } catch (...) {
    return CurrentExceptionStatus(StrCat(method, " request"));
  }
}

}  // namespace clab
