#include "GpuUnaryKernel.h"

#include "CudaStatus.h"
#include "GpuDevice.h"
#include "GpuKernelSupport.h"

namespace clab::gpu {

KernelFactory GpuUnaryKernel::Factory(UnaryOp op) {
  return [op](OpKernelConstruction& construction) -> StatusOr<std::unique_ptr<OpKernel>> {
    CLAB_ASSIGN_OR_RETURN(GpuDevice * device, GpuDeviceFor(construction));
    const DataType dtype = construction.output_type(0);
    CLAB_RETURN_IF_ERROR(CheckFloatingType(construction.op().name, dtype));
    return std::unique_ptr<OpKernel>(new GpuUnaryKernel(device, op, dtype));
  };
}

void GpuUnaryKernel::Compute(OpKernelContext* ctx) { ctx->SetStatus(Run(ctx)); }

Status GpuUnaryKernel::Run(OpKernelContext* ctx) {
  CLAB_RETURN_IF_ERROR(device_->Activate());
  CLAB_ASSIGN_OR_RETURN(Tensor x, InputOnDevice(ctx, 0, device_));
  if (x.dtype() != dtype_)
    return errors::InvalidArgument("Input 0 has type ", DataTypeName(x.dtype()), ", expected ", DataTypeName(dtype_));
  CLAB_ASSIGN_OR_RETURN(Tensor * y, AllocateDeviceOutput(ctx, 0, dtype_, x.shape(), device_));
  const int64_t n = x.NumElements();
  const cudaError_t error = dtype_ == DT_FLOAT
                                ? LaunchUnary<float>(op_, x.data<float>(), y->data<float>(), n, device_->stream())
                                : LaunchUnary<double>(op_, x.data<double>(), y->data<double>(), n, device_->stream());
  return FromCuda(error, absl::StrCat("Launching the GPU kernel on ", device_->name()));
}

}  // namespace clab::gpu
