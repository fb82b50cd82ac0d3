// `clab watch grpc://host:port`: what a running task reports, one line per event: its state,
// the placement log, hook output, steps, checkpoints, errors. The stream comes from the
// task's clab.MonitorService, the one the studio watches.
#pragma once

#include "cli/AccessFlags.h"
#include "cli/Command.h"

#include <cstdint>
#include <string>

namespace clab::cli {

class WatchCommand : public Command {
 public:
  std::string name() const override { return "watch"; }
  std::string summary() const override { return "Follow the events of a running task (state, placement, hooks)"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::string target_;
  int64_t since_ = 0;
  bool no_follow_ = false;
  bool steps_ = false;
  AccessFlags access_;
};

}  // namespace clab::cli
