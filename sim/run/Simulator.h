// The simulator's entry point: a project, the platform it is to run on and a calibration
// give, for each configuration (workers, ps, sync), a SimulationResult with its bottleneck
// named. Each configuration compiles the project's step for its cluster (cached per ps
// count), then plays it in SimGrid in a process of its own; several run side by side.
//
//   Simulator simulator(project, platform, calibration);
//   StatusOr<SimulationResult> r = simulator.Run({.workers = 200, .ps = 8});
#pragma once

#include "calibration/Calibration.h"
#include "clab/core/Status.h"
#include "model/StepModel.h"
#include "model/StepPlan.h"
#include "platform/PlatformSpec.h"
#include "project/SimProject.h"
#include "run/SimulationResult.h"

#include <map>
#include <memory>
#include <vector>

namespace clab::sim {

class Simulator {
 public:
  Simulator(SimProject project, PlatformSpec platform, Calibration calibration);

  StatusOr<SimulationResult> Run(const SimulationConfig& config);
  // In order; up to `parallel` simulations at a time (0: one per CPU).
  std::vector<StatusOr<SimulationResult>> RunAll(const std::vector<SimulationConfig>& configs, int parallel = 0);

  // The step of one worker on `ps` parameter servers, and the model the actors play.
  StatusOr<const StepPlan*> Plan(int workers, int ps);
  StatusOr<StepModel> Model(int workers, int ps);
  // The tasks of a simulated cluster, in the order the platform binds them: ps, then workers.
  static std::vector<std::string> Tasks(int workers, int ps);

  const PlatformSpec& platform() const { return platform_; }
  const Calibration& calibration() const { return calibration_; }

 private:
  Status CheckConfig(const SimulationConfig& config) const;

  SimProject project_;
  PlatformSpec platform_;
  Calibration calibration_;
  std::map<int, std::unique_ptr<StepPlan>> plans_;  // by ps count
};

}  // namespace clab::sim
