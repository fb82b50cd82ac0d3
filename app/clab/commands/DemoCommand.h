// `clab demo`: the seed program's graph (x . w = [[20]]) built with the C++ API and run in
// a local session with log_device_placement, so a newcomer sees placement lines and results
// without writing anything. The distributed version (a ps and a worker talking gRPC) will
// take its place.
#pragma once

#include "cli/Command.h"

#include <cstdint>
#include <string>

namespace clab::cli {

class DemoCommand : public Command {
 public:
  std::string name() const override { return "demo"; }
  std::string summary() const override { return "Run the seed example (x . w = [[20]]) and show where each op runs"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  int64_t steps_ = 3;
};

}  // namespace clab::cli
