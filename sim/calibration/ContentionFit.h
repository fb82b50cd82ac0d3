// Fits what sharing a machine costs (Calibration's rpc.awake_saving_seconds and
// rpc.busy_wake_latency) to a real run of one ps and several workers on the calibrated
// machine. A run with one worker cannot show either: every call finds the ps idle, and the
// machine has a core free whenever a message arrives. With two workers on two cores the ps
// spends less CPU per step than alone (a call that finds it awake skips the wake-up) while
// each worker's step takes longer (a woken thread waits for a core, or for one to wake).
//
// The fit simulates the measured configuration on `platform` (the calibrated machine) and
// adjusts both: the saving until the simulated ps CPU per step is the measured one, the
// latency (by bisection) until the simulated steps/s are; each simulation is deterministic
// (fixed seeds), so the fit is too.
#pragma once

#include "calibration/Calibration.h"
#include "clab/core/Status.h"
#include "platform/PlatformSpec.h"
#include "project/SimProject.h"

#include <functional>
#include <string>

namespace clab::sim {

struct ContentionMeasurement {
  int workers = 2;              // on one ps
  double steps_per_second = 0;  // of all workers
  double ps_cpu_per_step = 0;   // the ps's CPU seconds per step of any worker
};

StatusOr<Calibration> FitContention(const Calibration& calibration, const SimProject& project,
                                    const PlatformSpec& platform, const ContentionMeasurement& measured,
                                    const std::function<void(const std::string&)>& log = nullptr);

}  // namespace clab::sim
