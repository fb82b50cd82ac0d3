// The state behind a ConditionalAccumulator node: it sums the gradients of one variable
// sent by the replicas of a synchronous training step, and hands out their mean once
// enough have arrived. A gradient computed from parameters older than the accumulator's
// step (its local_step is behind) is stale and dropped, as TensorFlow's accumulator does.
// A take waits (without holding a thread) until the required number of gradients is there;
// each take moves the accumulator's step on by one.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/runtime/ResourceMgr.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

namespace clab {

class GradientAccumulator : public Resource {
 public:
  using TakeDone = std::function<void(const Status&, Tensor)>;

  GradientAccumulator(std::string name, DataType dtype, PartialShape shape, bool mean);

  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }

  // Adds `gradient` unless local_step is older than the accumulator's step. Returns whether
  // it was counted; INVALID_ARGUMENT when its type or shape does not fit.
  StatusOr<bool> Apply(int64_t local_step, const Tensor& gradient);
  // Calls `done` with the mean (or sum) of the gradients once `num_required` are counted.
  void TakeAsync(int64_t num_required, TakeDone done);
  // TensorFlow's set_global_step: gradients from steps before `step` are stale from now on.
  void SetGlobalStep(int64_t step);
  // Fails the takes waiting now with `status`; later takes wait as usual.
  void CancelPendingTakes(const Status& status);

  int64_t num_accumulated() const;
  int64_t global_step() const;
  int64_t dropped() const;
  std::string DebugString() const override;

 private:
  struct PendingTake {
    int64_t num_required;
    TakeDone done;
  };
  // The first waiting take when enough gradients are counted: its result, and a reset.
  bool TryTakeLocked(TakeDone* done, Tensor* result);

  const std::string name_;
  const DataType dtype_;
  const PartialShape shape_;
  const bool mean_;
  mutable std::mutex mu_;
  Tensor sum_;  // not initialised while nothing is counted
  int64_t count_ = 0;
  int64_t step_ = 0;
  int64_t dropped_ = 0;
  std::deque<PendingTake> takes_;
};

}  // namespace clab
