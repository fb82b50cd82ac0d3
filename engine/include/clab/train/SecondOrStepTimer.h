// Triggers every N seconds or every N steps (exactly one), and always on the first query,
// never twice for the same step: the cadence of TensorFlow's periodic hooks.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace clab {

class SecondOrStepTimer {
 public:
  using Clock = std::chrono::steady_clock;
  static SecondOrStepTimer EverySeconds(double seconds) { return SecondOrStepTimer(seconds, 0); }
  static SecondOrStepTimer EverySteps(int64_t steps) { return SecondOrStepTimer(0, steps); }

  bool ShouldTriggerForStep(int64_t step) const;
  // Marks `step` as triggered now; returns (elapsed seconds, elapsed steps) since the last
  // trigger, or nothing on the first.
  std::optional<std::pair<double, int64_t>> UpdateLastTriggeredStep(int64_t step);
  std::optional<int64_t> last_triggered_step() const { return last_step_; }
  void Reset() { last_step_.reset(); }
  // For tests: a clock to use instead of the steady clock.
  void set_now_for_testing(std::optional<Clock::time_point> now) { fake_now_ = now; }

 private:
  SecondOrStepTimer(double seconds, int64_t steps) : every_secs_(seconds), every_steps_(steps) {}
  Clock::time_point Now() const { return fake_now_ ? *fake_now_ : Clock::now(); }
  double every_secs_;
  int64_t every_steps_;
  std::optional<int64_t> last_step_;
  Clock::time_point last_time_;
  std::optional<Clock::time_point> fake_now_;
};

}  // namespace clab
