#include "ops/GradientAccumulator.h"

#include <cstring>

namespace clab {
namespace {

template <typename T>
void AddInto(Tensor* sum, const Tensor& value) {
  T* out = sum->data<T>();
  const T* in = value.data<T>();
  for (int64_t i = 0, i_end = value.NumElements(); i < i_end; ++i) out[i] += in[i];
}

template <typename T>
Tensor Scaled(const Tensor& sum, double factor) {
  Tensor result(sum.dtype(), sum.shape());
  const T* in = sum.data<T>();
  T* out = result.data<T>();
  for (int64_t i = 0, i_end = sum.NumElements(); i < i_end; ++i) out[i] = static_cast<T>(in[i] * factor);
  return result;
}

}  // namespace

GradientAccumulator::GradientAccumulator(std::string name, DataType dtype, PartialShape shape, bool mean)
    : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)), mean_(mean) {}

StatusOr<bool> GradientAccumulator::Apply(int64_t local_step, const Tensor& gradient) {
  if (gradient.dtype() != dtype_)
    return errors::InvalidArgument("ConditionalAccumulator '", name_, "' accumulates ", DataTypeName(dtype_),
                                   " gradients, got ", DataTypeName(gradient.dtype()));
  if (!shape_.IsCompatibleWith(PartialShape(gradient.shape())))
    return errors::InvalidArgument("ConditionalAccumulator '", name_, "' expects gradients of shape ",
                                   shape_.DebugString(), ", got ", gradient.shape().DebugString());
  TakeDone done;
  Tensor result;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (local_step < step_) {
      ++dropped_;
      return false;
    }
    if (count_ == 0) {
      sum_ = Tensor(dtype_, gradient.shape());
      std::memcpy(sum_.raw_data(), gradient.raw_data(), gradient.TotalBytes());
    } else if (sum_.shape() != gradient.shape()) {
      return errors::InvalidArgument("ConditionalAccumulator '", name_, "' holds gradients of shape ",
                                     sum_.shape().DebugString(), ", got ", gradient.shape().DebugString());
    } else if (dtype_ == DT_DOUBLE) {
      AddInto<double>(&sum_, gradient);
    } else {
      AddInto<float>(&sum_, gradient);
    }
    ++count_;
    if (!TryTakeLocked(&done, &result)) return true;
  }
  done(OkStatus(), std::move(result));
  return true;
}

bool GradientAccumulator::TryTakeLocked(TakeDone* done, Tensor* result) {
  if (takes_.empty() || count_ < takes_.front().num_required) return false;
  const double factor = mean_ ? 1.0 / static_cast<double>(count_) : 1.0;
  *result = dtype_ == DT_DOUBLE ? Scaled<double>(sum_, factor) : Scaled<float>(sum_, factor);
  *done = std::move(takes_.front().done);
  takes_.pop_front();
  sum_ = Tensor();
  count_ = 0;
  ++step_;
  return true;
}

void GradientAccumulator::TakeAsync(int64_t num_required, TakeDone done) {
  if (num_required < 1) {
    done(errors::InvalidArgument("ConditionalAccumulator '", name_,
                                 "': the number of required gradients must be at least 1, got ", num_required),
         Tensor());
    return;
  }
  TakeDone ready;
  Tensor result;
  {
    std::lock_guard<std::mutex> lock(mu_);
    takes_.push_back(PendingTake{num_required, std::move(done)});
    if (!TryTakeLocked(&ready, &result)) return;
  }
  ready(OkStatus(), std::move(result));
}

void GradientAccumulator::SetGlobalStep(int64_t step) {
  std::lock_guard<std::mutex> lock(mu_);
  step_ = step;
}

void GradientAccumulator::CancelPendingTakes(const Status& status) {
  std::deque<PendingTake> cancelled;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled.swap(takes_);
  }
  for (auto& take : cancelled) take.done(status, Tensor());
}

int64_t GradientAccumulator::num_accumulated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return count_;
}

int64_t GradientAccumulator::global_step() const {
  std::lock_guard<std::mutex> lock(mu_);
  return step_;
}

int64_t GradientAccumulator::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

std::string GradientAccumulator::DebugString() const {
  return StrCat("ConditionalAccumulator '", name_, "' (", DataTypeName(dtype_), ", ", shape_.DebugString(), ")");
}

}  // namespace clab
