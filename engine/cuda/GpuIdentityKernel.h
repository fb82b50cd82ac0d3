// Identity on the GPU: forwards its input's buffer (no copy). A numeric input that arrives
// in host memory is copied to the device first, so GPU outputs are always device tensors.
#pragma once

#include "clab/runtime/OpKernel.h"

namespace clab::gpu {

class GpuDevice;

class GpuIdentityKernel : public OpKernel {
 public:
  static StatusOr<std::unique_ptr<OpKernel>> Create(OpKernelConstruction& construction);
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }

 private:
  explicit GpuIdentityKernel(GpuDevice* device) : device_(device) {}

  GpuDevice* device_;
};

}  // namespace clab::gpu
