#include "clab/train/hooks/NanTensorHook.h"

#include <cmath>

namespace clab {

Status NanTensorHook::Begin(HookEnvironment& env) {
  env_ = env;
  return OkStatus();
}

StatusOr<SessionRunArgs> NanTensorHook::BeforeRun(SessionRunContext&) {
  SessionRunArgs args;
  args.fetches = {loss_};
  return args;
}

Status NanTensorHook::AfterRun(SessionRunContext& context, const SessionRunValues& values) {
  const Tensor& loss = values.results[0];
  bool nan = false;
  if (loss.dtype() == DT_FLOAT) nan = std::isnan(loss.data<float>()[0]);
  if (loss.dtype() == DT_DOUBLE) nan = std::isnan(loss.data<double>()[0]);
  if (!nan) return OkStatus();
  const std::string message = "Model diverged with loss = NaN.";
  if (fail_) {
    env_.log->Hook(name(), LogLevel::kError, message);
    return errors::Internal("NaN loss during training. ", message);
  }
  env_.log->Hook(name(), LogLevel::kWarning, message);
  context.request_stop();
  return OkStatus();
}

}  // namespace clab
