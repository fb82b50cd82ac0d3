// `clab simulate --calibrate`: measures this machine for the simulator, on the project's own
// step, with one ps (a `clab server` process) and one worker:
//
//   1. traced steps: a worker server and a session in this process run the step with
//      FULL_TRACE; each node's time comes from the step stats of every partition
//   2. bare gRPC echoes to the ps process (small and 64 KiB), timing each call and the CPU
//      both processes spend on it
//   3. real runs of the program (`clab example ...`, one process per task) on one ps and on
//      two with one worker, and on one ps with two workers, three of each for a few seconds:
//      steps per second and the CPU each process spends per step, of the median run of each
//
// and fits a Calibration to them (sim/calibration/CalibrationFit.h), then what sharing this
// machine's cores costs to the run with two workers (sim/calibration/ContentionFit.h).
#pragma once

#include "calibration/Calibration.h"
#include "clab/core/Status.h"

#include <functional>
#include <string>

namespace clab::cli {

struct SimCalibrationOptions {
  std::string clab;  // the `clab` executable, for the ps and the real run
  std::string project_path;
  double seconds = 4;  // the real run
  int traced_steps = 60;
  std::function<void(const std::string&)> progress;  // a line per stage
};

StatusOr<sim::Calibration> CalibrateProject(const SimCalibrationOptions& options);

}  // namespace clab::cli
