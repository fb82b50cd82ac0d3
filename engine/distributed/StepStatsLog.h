// The step statistics a worker keeps while logging is on (WorkerService.Logging): every
// RunGraph then records its per-device stats under its step id, and a Logging call answers
// those of the steps it names. Bounded: the oldest steps are dropped first. Thread-safe.
#pragma once

#include "clab/core/Mutex.h"
#include "tensorflow/step_stats.pb.h"
#include "tensorflow/worker.pb.h"

#include <cstdint>
#include <deque>
#include <map>

namespace clab {

class StepStatsLog {
 public:
  static constexpr size_t kMaxSteps = 1000;

  bool enabled() const;
  // Adds `stats` to those of `step_id` (a step may run several graphs here) when enabled.
  void Record(int64_t step_id, const tensorflow::StepStats& stats);
  // Enables or disables, answers the stats of each fetch_step_id this log holds, then clears
  // when asked (TensorFlow's order).
  void Apply(const tensorflow::LoggingRequest& request, tensorflow::LoggingResponse* response);

 private:
  mutable Mutex mu_;
  bool enabled_ ABSL_GUARDED_BY(mu_) = false;
  std::map<int64_t, tensorflow::StepStats> steps_ ABSL_GUARDED_BY(mu_);
  std::deque<int64_t> order_ ABSL_GUARDED_BY(mu_);
};

}  // namespace clab
