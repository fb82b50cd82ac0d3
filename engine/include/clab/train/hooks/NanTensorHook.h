#pragma once

#include "clab/train/SessionRunHook.h"

namespace clab {

// Watches the loss: NaN stops training ("Model diverged with loss = NaN."), with an error
// (fail_on_nan_loss) or a stop request.
class NanTensorHook : public SessionRunHook {
 public:
  explicit NanTensorHook(std::string loss_tensor, bool fail_on_nan_loss = true)
      : loss_(std::move(loss_tensor)), fail_(fail_on_nan_loss) {}
  std::string name() const override { return "NanTensorHook"; }
  Status Begin(HookEnvironment& env) override;
  StatusOr<SessionRunArgs> BeforeRun(SessionRunContext& context) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;

 private:
  std::string loss_;
  bool fail_;
  HookEnvironment env_;
};

}  // namespace clab
