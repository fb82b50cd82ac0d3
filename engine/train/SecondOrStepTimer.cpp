#include "clab/train/SecondOrStepTimer.h"

namespace clab {

bool SecondOrStepTimer::ShouldTriggerForStep(int64_t step) const {
  if (!last_step_) return true;
  if (*last_step_ == step) return false;
  if (every_steps_ > 0) return step >= *last_step_ + every_steps_;
  const double elapsed = std::chrono::duration<double>(Now() - last_time_).count();
  return elapsed >= every_secs_;
}

std::optional<std::pair<double, int64_t>> SecondOrStepTimer::UpdateLastTriggeredStep(int64_t step) {
  const auto now = Now();
  std::optional<std::pair<double, int64_t>> elapsed;
  if (last_step_) elapsed = std::make_pair(std::chrono::duration<double>(now - last_time_).count(), step - *last_step_);
  last_step_ = step;
  last_time_ = now;
  return elapsed;
}

}  // namespace clab
