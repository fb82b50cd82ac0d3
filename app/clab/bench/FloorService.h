// The floor of `clab bench step`: a plain synchronous gRPC service (clab.bench.FloorService)
// as one would write it by hand, served by `clab bench floor-server` in a process of its own.
// Echo returns the request's bytes; Fetch copies the asked number of bytes from a buffer made
// once into its reply.
#pragma once

#include "bench/floor.grpc.pb.h"

#include <cstdint>
#include <mutex>
#include <string>

namespace clab::cli {

class FloorService final : public bench::FloorService::Service {
 public:
  // The largest Fetch it answers, and what the server's message limits must allow.
  static constexpr int64_t kMaxFetchBytes = int64_t{64} << 20;

  grpc::Status Echo(grpc::ServerContext* context, const bench::FloorEcho* request, bench::FloorEcho* reply) override;
  grpc::Status Fetch(grpc::ServerContext* context, const bench::FloorFetchRequest* request,
                     bench::FloorFetchReply* reply) override;

 private:
  std::mutex mu_;
  std::string bytes_;  // grows to the largest Fetch so far
};

}  // namespace clab::cli
