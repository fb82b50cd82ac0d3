// clab.ProbeService on every task's server: Echo returns its payload, Fetch returns a
// payload of the asked size. What a bare gRPC call costs on a link, measured beside the
// runtime's own calls by `clab bench step`.
#pragma once

#include "clab/probe.grpc.pb.h"

#include <mutex>
#include <string>

namespace clab {

class GrpcProbeService final : public ProbeService::CallbackService {
 public:
  static constexpr int64_t kMaxFetchBytes = int64_t{64} << 20;

  grpc::ServerUnaryReactor* Echo(grpc::CallbackServerContext* context, const EchoRequest* request,
                                 EchoResponse* response) override;
  grpc::ServerUnaryReactor* Fetch(grpc::CallbackServerContext* context, const FetchRequest* request,
                                  FetchResponse* response) override;

 private:
  std::mutex mu_;
  std::string payload_;  // grown to the largest size asked for; replies copy a prefix
};

}  // namespace clab
