#include "bench/FloorServerProcess.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_join.h>

#include <chrono>

namespace clab::cli {
namespace {

constexpr char kListening[] = "Floor server listening on 127.0.0.1:";

}  // namespace

StatusOr<std::unique_ptr<FloorServerProcess>> FloorServerProcess::Start(const std::string& clab_program) {
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<launch::ChildProcess> process,
                        launch::ChildProcess::Start(clab_program, {"bench", "floor-server", "--port", "0"}, {}));
  if (!process->WaitForLine(kListening, std::chrono::seconds(30))) {
    process->Stop();
    return errors::Unavailable("the floor server (", clab_program,
                               " bench floor-server) did not start: ", absl::StrJoin(process->lines(), " / "));
  }
  for (const std::string& line : process->lines()) {
    const size_t at = line.find(kListening);
    if (at == std::string::npos) continue;
    int port = 0;
    const std::string digits = line.substr(at + sizeof(kListening) - 1);
    if (!absl::SimpleAtoi(digits, &port) || port <= 0 || port > 65535) {
      process->Stop();
      return errors::DataLoss("the floor server announced an unreadable port: '", line, "'");
    }
    return std::unique_ptr<FloorServerProcess>(
        new FloorServerProcess(std::move(process), "127.0.0.1:" + std::to_string(port)));
  }
  process->Stop();
  return errors::Internal("the floor server's listening line went missing");
}

FloorServerProcess::FloorServerProcess(std::unique_ptr<launch::ChildProcess> process, std::string address)
    : process_(std::move(process)), address_(std::move(address)) {}

FloorServerProcess::~FloorServerProcess() {
  if (!stopped_) Stop();
}

int FloorServerProcess::Stop() {
  stopped_ = true;
  return process_->Stop();
}

}  // namespace clab::cli
