// `clab bench floor-server` as a process this benchmark starts and owns: started on a port
// the server picks itself (port 0, read back from the line it prints), stopped with SIGTERM
// at the end. Only this process is ever signalled.
#pragma once

#include "clab/core/Status.h"
#include "launch/process/ChildProcess.h"

#include <sys/types.h>

#include <memory>
#include <string>

namespace clab::cli {

class FloorServerProcess {
 public:
  // UNAVAILABLE with what the program said when it does not announce its port in time.
  static StatusOr<std::unique_ptr<FloorServerProcess>> Start(const std::string& clab_program);
  ~FloorServerProcess();

  pid_t pid() const { return process_->pid(); }
  const std::string& address() const { return address_; }  // "127.0.0.1:PORT"

  // SIGTERM (SIGKILL after a grace period); the exit status, 0 for a clean stop.
  int Stop();

 private:
  FloorServerProcess(std::unique_ptr<launch::ChildProcess> process, std::string address);

  std::unique_ptr<launch::ChildProcess> process_;
  std::string address_;
  bool stopped_ = false;
};

}  // namespace clab::cli
