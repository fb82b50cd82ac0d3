#include "GpuIdentityKernel.h"

#include "GpuDevice.h"
#include "GpuKernelSupport.h"

namespace clab::gpu {

StatusOr<std::unique_ptr<OpKernel>> GpuIdentityKernel::Create(OpKernelConstruction& construction) {
  CLAB_ASSIGN_OR_RETURN(GpuDevice * device, GpuDeviceFor(construction));
  if (DataTypeSize(BaseType(construction.output_type(0))) == 0)
    return errors::Unimplemented("The GPU kernel of Identity does not take ", DataTypeName(construction.output_type(0)),
                                 " tensors; place the op on a CPU");
  return std::unique_ptr<OpKernel>(new GpuIdentityKernel(device));
}

void GpuIdentityKernel::Compute(OpKernelContext* ctx) {
  const Tensor& input = ctx->input(0);
  if (!input.OnHost() || input.NumElements() == 0) {
    ctx->set_output(0, input);
    return;
  }
  Status status = device_->Activate();
  if (status.ok()) {
    auto on_device = InputOnDevice(ctx, 0, device_);
    if (on_device.ok()) {
      ctx->set_output(0, std::move(on_device).value());
      return;
    }
    status = on_device.status();
  }
  ctx->SetStatus(status);
}

}  // namespace clab::gpu
