// One-input element-wise ops on the GPU: Neg, Square, Sqrt, Exp, Log, Relu, Sigmoid, Tanh.
#pragma once

#include "CwiseOps.h"

#include "clab/runtime/OpKernel.h"

namespace clab::gpu {

class GpuDevice;

class GpuUnaryKernel : public OpKernel {
 public:
  // The factory for one op, e.g. Factory(UnaryOp::kExp) for "Exp".
  static KernelFactory Factory(UnaryOp op);
  void Compute(OpKernelContext* ctx) override;

 private:
  GpuUnaryKernel(GpuDevice* device, UnaryOp op, DataType dtype) : device_(device), op_(op), dtype_(dtype) {}
  Status Run(OpKernelContext* ctx);

  GpuDevice* device_;
  UnaryOp op_;
  DataType dtype_;
};

}  // namespace clab::gpu
