// `clab bench floor-server` (not listed in --help): serves bench/FloorService on a free
// 127.0.0.1 port of its own choosing, prints "Floor server listening on 127.0.0.1:PORT" and
// serves until SIGTERM or SIGINT, then prints "Floor server stopped". `clab bench step`
// starts it as its floor process and stops it at the end.
#pragma once

#include "cli/Command.h"

#include <cstdint>
#include <string>

namespace clab::cli {

class BenchFloorServerCommand : public Command {
 public:
  std::string name() const override { return "bench floor-server"; }
  std::string summary() const override { return "Serve the plain gRPC floor of 'clab bench step'"; }
  std::string description() const override;
  bool hidden() const override { return true; }
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  int64_t port_ = 0;
};

}  // namespace clab::cli
