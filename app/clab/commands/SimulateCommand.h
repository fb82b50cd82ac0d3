// `clab simulate PROJECT --platform FILE --workers 1,2,4,...,1000 --ps 1,2,4`: predicts a
// project's training on clusters this machine cannot hold, one SimGrid simulation per
// (workers, ps) configuration, and prints a table of steps/s, where a step's time goes and
// what limits it. `clab simulate --calibrate PROJECT -o FILE` measures this machine first.
#pragma once

#include "cli/Command.h"

#include <cstdint>
#include <string>

namespace clab::sim {
class Simulator;
}

namespace clab::cli {

class SimulateCommand : public Command {
 public:
  std::string name() const override { return "simulate"; }
  std::string summary() const override { return "Predict a project's training on a simulated cluster"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  Status Calibrate(std::ostream& out);
  Status Explain(sim::Simulator& simulator, int workers, int ps, std::ostream& out);

  std::string project_;
  std::string platform_;
  std::string workers_ = "1,2,4,8";
  std::string ps_ = "1";
  bool sync_ = false;
  bool async_ = false;
  int64_t steps_ = 100;
  int64_t seed_ = 1;
  int64_t parallel_ = 0;
  int64_t actors_ = 64;
  std::string calibration_;
  std::string trace_;
  int64_t trace_steps_ = 3;
  std::string csv_;
  bool calibrate_ = false;
  bool explain_ = false;
  std::string output_;
  int64_t calibrate_seconds_ = 4;
};

}  // namespace clab::cli
