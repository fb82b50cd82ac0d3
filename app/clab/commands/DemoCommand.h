// `clab demo`: the seed program on a real cluster on this machine. A ps task and a worker
// task run as two processes on free loopback ports, talking gRPC; the worker prints the
// placement log (x and w on the ps, MatMul on the worker) and [[20]] per step. `--local`
// runs the same graph in this process instead.
#pragma once

#include "cli/Command.h"

#include <cstdint>
#include <string>

namespace clab::cli {

class DemoCommand : public Command {
 public:
  std::string name() const override { return "demo"; }
  std::string summary() const override { return "Run the seed program on a ps and a worker on this machine"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  Status RunLocal(std::ostream& out);
  Status RunDistributed(std::ostream& out);

  int64_t last_step_ = 200;
  bool faithful_ = false;
  int64_t max_seconds_ = 0;
  std::string checkpoint_dir_;
  int64_t timeout_s_ = 300;
  bool local_ = false;
};

}  // namespace clab::cli
