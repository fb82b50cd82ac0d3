// Two-input element-wise ops on the GPU: Add, AddV2, Sub, Mul, RealDiv. Operands of equal
// shape, or one operand holding a single value (a scalar, or [1], [1,1]... of no higher
// rank than the other). Other broadcasts are UNIMPLEMENTED here and name both shapes, so
// the op can be placed on a CPU instead.
#pragma once

#include "CwiseOps.h"

#include "clab/runtime/OpKernel.h"

namespace clab::gpu {

class GpuDevice;

class GpuBinaryKernel : public OpKernel {
 public:
  static KernelFactory Factory(BinaryOp op);
  void Compute(OpKernelContext* ctx) override;

 private:
  GpuBinaryKernel(GpuDevice* device, BinaryOp op, DataType dtype, std::string op_name)
      : device_(device), op_(op), dtype_(dtype), op_name_(std::move(op_name)) {}
  Status Run(OpKernelContext* ctx);

  GpuDevice* device_;
  BinaryOp op_;
  DataType dtype_;
  std::string op_name_;
};

}  // namespace clab::gpu
