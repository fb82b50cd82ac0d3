#include "calibration/ContentionFit.h"

#include "run/Simulator.h"

#include <absl/strings/str_format.h>

#include <algorithm>
#include <cmath>

namespace clab::sim {
namespace {

// Beyond this the fit gives up looking for a latency: the model is too fast for some other
// reason than waking threads.
constexpr double kMostLatency = 20e-3;
constexpr int kBisections = 12;

class Fit {
 public:
  Fit(const Calibration& calibration, const SimProject& project, const PlatformSpec& platform,
      const ContentionMeasurement& measured, int served_calls)
      : calibration_(calibration), project_(project), platform_(platform), measured_(measured),
        served_calls_(std::max(1, served_calls)) {}

  // The simulated run with these costs.
  StatusOr<SimulationResult> Simulate(double saving, double latency) {
    Calibration c = calibration_;
    c.rpc.awake_saving_seconds = saving;
    c.rpc.busy_wake_latency = latency;
    Simulator simulator(project_, platform_, c);
    SimulationConfig config;
    config.workers = measured_.workers;
    config.ps = 1;
    config.steps = 200;
    return simulator.Run(config);
  }

  // For a latency, the saving whose simulation spends the measured ps CPU per step (the
  // simulated CPU falls by the saving times the calls that find the ps awake).
  StatusOr<SimulationResult> FitSaving(double latency, double* saving) {
    const double most = 0.9 * calibration_.rpc.server_seconds;
    for (int round = 0; round < 6; ++round) {
      CLAB_ASSIGN_OR_RETURN(SimulationResult result, Simulate(*saving, latency));
      const double awake = std::max(result.awake_call_share, 0.05) * served_calls_;
      const double next =
          std::clamp(*saving + (result.served_cpu_per_step - measured_.ps_cpu_per_step) / awake, 0.0, most);
      if (std::fabs(next - *saving) < 1e-7) return result;
      *saving = next;
    }
    return Simulate(*saving, latency);
  }

 private:
  const Calibration& calibration_;
  const SimProject& project_;
  const PlatformSpec& platform_;
  const ContentionMeasurement& measured_;
  int served_calls_;
};

}  // namespace

StatusOr<Calibration> FitContention(const Calibration& calibration, const SimProject& project,
                                    const PlatformSpec& platform, const ContentionMeasurement& measured,
                                    const std::function<void(const std::string&)>& log) {
  if (!(measured.steps_per_second > 0) || !(measured.ps_cpu_per_step > 0) || measured.workers < 2)
    return errors::InvalidArgument("the run with several workers made no steps to fit to");
  Simulator probe(project, platform, calibration);
  CLAB_ASSIGN_OR_RETURN(const StepModel model, probe.Model(measured.workers, 1));
  Fit fit(calibration, project, platform, measured, model.server_calls);

  double saving = 0, latency = 0;
  CLAB_ASSIGN_OR_RETURN(SimulationResult result, fit.FitSaving(0, &saving));
  if (result.total_steps_per_second > measured.steps_per_second) {
    // The simulation is faster than the machine: find the latency that slows it down to it.
    double lo = 0, hi = 50e-6;
    double lo_saving = saving, hi_saving = saving;
    for (;;) {
      CLAB_ASSIGN_OR_RETURN(result, fit.FitSaving(hi, &hi_saving));
      if (result.total_steps_per_second <= measured.steps_per_second || hi >= kMostLatency) break;
      lo = hi;
      lo_saving = hi_saving;
      hi *= 2;
    }
    for (int i = 0; i < kBisections && hi < kMostLatency; ++i) {
      const double mid = (lo + hi) / 2;
      double mid_saving = (lo_saving + hi_saving) / 2;
      CLAB_ASSIGN_OR_RETURN(result, fit.FitSaving(mid, &mid_saving));
      if (result.total_steps_per_second > measured.steps_per_second) {
        lo = mid;
        lo_saving = mid_saving;
      } else {
        hi = mid;
        hi_saving = mid_saving;
      }
    }
    latency = hi;
    saving = hi_saving;
    CLAB_ASSIGN_OR_RETURN(result, fit.FitSaving(latency, &saving));
  }
  Calibration fitted = calibration;
  fitted.rpc.awake_saving_seconds = saving;
  fitted.rpc.busy_wake_latency = latency;
  fitted.measured_two_workers_steps_per_second = measured.steps_per_second;
  fitted.measured_two_workers_ps_cpu_per_step = measured.ps_cpu_per_step;
  if (log)
    log(absl::StrFormat(
        "%d workers on 1 ps: a call that finds the ps at work saves %.0f us of its CPU, a message to a busy "
        "machine waits %.0f us more; simulated %.1f steps/s (measured %.1f), ps CPU per step %.0f us (measured "
        "%.0f), %.0f%% of calls find the ps at work",
        measured.workers, saving * 1e6, latency * 1e6, result.total_steps_per_second, measured.steps_per_second,
        result.served_cpu_per_step * 1e6, measured.ps_cpu_per_step * 1e6, 100 * result.awake_call_share));
  return fitted;
}

}  // namespace clab::sim
