#include "bench/FloorService.h"

#include <string>

namespace clab::cli {

grpc::Status FloorService::Echo(grpc::ServerContext*, const bench::FloorEcho* request, bench::FloorEcho* reply) {
  reply->set_payload(request->payload());
  return grpc::Status::OK;
}

grpc::Status FloorService::Fetch(grpc::ServerContext*, const bench::FloorFetchRequest* request,
                                 bench::FloorFetchReply* reply) {
  const int64_t bytes = request->bytes();
  if (bytes < 0 || bytes > kMaxFetchBytes)
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "Fetch: " + std::to_string(bytes) +
                                                                " bytes asked; from 0 to " +
                                                                std::to_string(kMaxFetchBytes) + " are served");
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes_.size() < static_cast<size_t>(bytes)) bytes_.assign(static_cast<size_t>(bytes), '\x5a');
  reply->set_payload(bytes_.data(), static_cast<size_t>(bytes));
  return grpc::Status::OK;
}

}  // namespace clab::cli
