// Const on the GPU: the value is copied to device memory once, when the kernel is built,
// and every step outputs that same buffer (consumers never write into a shared input).
#pragma once

#include "clab/runtime/OpKernel.h"

namespace clab::gpu {

class GpuConstKernel : public OpKernel {
 public:
  static StatusOr<std::unique_ptr<OpKernel>> Create(OpKernelConstruction& construction);
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }
  bool IsExpensive() const override { return false; }

 private:
  explicit GpuConstKernel(Tensor value) : value_(std::move(value)) {}

  Tensor value_;
};

}  // namespace clab::gpu
