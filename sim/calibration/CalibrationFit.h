// Turns what a calibration run measured into a Calibration, so that the simulator, playing
// the measured configuration (one ps and one worker on this machine), gives back the
// measured step: op times are the traced medians; a call's CPU at each end and its latency
// come from bare gRPC echoes; what the real run spent beyond those (the client's hooks and
// master on the worker, the executor on the ps, waiting) becomes the per-step client cost,
// the per-call server cost and the per-step idle time. Pure arithmetic, so it is tested on
// its own.
#pragma once

#include "calibration/Calibration.h"
#include "clab/core/Status.h"
#include "model/StepPlan.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace clab::sim {

struct EchoMeasurement {
  int64_t bytes = 0;      // each way
  double wall = 0;        // seconds per call
  double client_cpu = 0;  // CPU seconds per call at the caller
  double server_cpu = 0;  // and at the callee
};

struct CalibrationMeasurements {
  std::string project;
  std::string machine;
  // Each node's time in each traced step (seconds).
  std::map<std::string, std::vector<double>> node_seconds;
  // Per traced step, the worker's own partition's node time (its spread is the jitter).
  std::vector<double> worker_step_seconds;
  EchoMeasurement small_echo;
  EchoMeasurement large_echo;
  // The real run of one ps and one worker.
  double steps_per_second = 0;
  double worker_cpu_per_step = 0;
  double ps_cpu_per_step = 0;
  // The real run of two ps and one worker (0: not measured): more calls of each kind.
  double two_ps_worker_cpu_per_step = 0;
  double two_ps_ps_cpu_per_step = 0;
};

// `step` is the project's step compiled for one worker and one ps, `two_ps` (may be null)
// for one worker and two ps. With both runs, the calls' CPU at each end and the client's per
// step are those that fit the four CPU figures best (a step on two ps makes more calls of
// each kind); with one, the ps's figure sets the server's cost and the worker's the client's.
StatusOr<Calibration> FitCalibration(const CalibrationMeasurements& measured, const StepPlan& step,
                                     const StepPlan* two_ps = nullptr);

}  // namespace clab::sim
