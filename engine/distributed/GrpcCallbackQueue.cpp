#include "distributed/GrpcCallbackQueue.h"

#include "clab/monitor.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <mutex>

namespace clab {

void HoldGrpcCallbackQueue() {
  static std::once_flag once;
  std::call_once(once, [] {
    // A started server with callback methods and no port holds the callback queue; it is
    // never shut down (nothing can reach it) and deliberately outlives everything else.
    static auto* service = new MonitorService::CallbackService;
    grpc::ServerBuilder builder;
    builder.RegisterService(service);
    static grpc::Server* holder = builder.BuildAndStart().release();
    (void)holder;
  });
}

}  // namespace clab
