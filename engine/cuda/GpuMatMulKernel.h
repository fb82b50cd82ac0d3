// MatMul on the GPU through cuBLAS (sgemm/dgemm), with TensorFlow's transpose_a/transpose_b.
#pragma once

#include "clab/runtime/OpKernel.h"

namespace clab::gpu {

class GpuDevice;

class GpuMatMulKernel : public OpKernel {
 public:
  static StatusOr<std::unique_ptr<OpKernel>> Create(OpKernelConstruction& construction);
  void Compute(OpKernelContext* ctx) override;

 private:
  GpuMatMulKernel(GpuDevice* device, DataType dtype, bool transpose_a, bool transpose_b)
      : device_(device), dtype_(dtype), transpose_a_(transpose_a), transpose_b_(transpose_b) {}
  Status Run(OpKernelContext* ctx);

  GpuDevice* device_;
  DataType dtype_;
  bool transpose_a_;
  bool transpose_b_;
};

}  // namespace clab::gpu
