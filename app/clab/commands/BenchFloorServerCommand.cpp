#include "commands/BenchFloorServerCommand.h"

#include "bench/FloorService.h"
#include "clab/core/TerminationSignal.h"
#include "cli/FlagParser.h"

#include <absl/strings/str_cat.h>
#include <grpcpp/grpcpp.h>

#include <ostream>

namespace clab::cli {

std::string BenchFloorServerCommand::description() const {
  return "Serves a plain synchronous gRPC service (clab.bench.FloorService: Echo returns the\n"
         "request's bytes, Fetch the number of bytes asked) on 127.0.0.1, in a process of its\n"
         "own: the floor 'clab bench step' compares ClusterLab's calls with. It prints\n"
         "'Floor server listening on 127.0.0.1:PORT' and serves until SIGTERM or Ctrl-C.";
}

void BenchFloorServerCommand::DeclareFlags(FlagParser& flags) {
  flags.AddInt("port", "N", "the port to listen on (0: a free one, printed)", &port_, 0, 65535);
}

Status BenchFloorServerCommand::Run(std::ostream& out) {
  // Signals are caught before the port is announced: whoever waits for that line may stop
  // this process at once.
  TerminationSignal signal;
  FloorService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(absl::StrCat("127.0.0.1:", port_), grpc::InsecureServerCredentials(), &port);
  // A Fetch reply carries up to kMaxFetchBytes plus its framing.
  const int limit = static_cast<int>(FloorService::kMaxFetchBytes + (1 << 20));
  builder.SetMaxReceiveMessageSize(limit);
  builder.SetMaxSendMessageSize(limit);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0)
    return errors::Unavailable("the floor server cannot listen on 127.0.0.1:", port_,
                               port_ == 0 ? "" : " (port in use?)");
  out << "Floor server listening on 127.0.0.1:" << port << std::endl;
  const int signal_number = signal.Wait();
  server->Shutdown();
  server->Wait();
  out << "Floor server stopped (" << TerminationSignal::Name(signal_number) << ")" << std::endl;
  return OkStatus();
}

}  // namespace clab::cli
