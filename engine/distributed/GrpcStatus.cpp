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
  if (call.empty()) return Status(code, status.error_message());
  return Status(code, StrCat(status.error_message(), " (", call, ")"));
}

Status GuardedCall(std::string_view method, const std::function<Status()>& call) {
  try {
    return call();
  } catch (...) {
    return CurrentExceptionStatus(StrCat(method, " request"));
  }
}

}  // namespace clab
