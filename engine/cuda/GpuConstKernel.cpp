#include "GpuConstKernel.h"

#include "GpuDevice.h"
#include "GpuKernelSupport.h"

namespace clab::gpu {

StatusOr<std::unique_ptr<OpKernel>> GpuConstKernel::Create(OpKernelConstruction& construction) {
  CLAB_ASSIGN_OR_RETURN(GpuDevice * device, GpuDeviceFor(construction));
  Tensor host;
  CLAB_RETURN_IF_ERROR(construction.GetAttr("value", &host));
  DataType dtype = DT_INVALID;
  CLAB_RETURN_IF_ERROR(construction.GetAttr("dtype", &dtype));
  if (host.dtype() != dtype)
    return errors::InvalidArgument("Const '", construction.name(), "' has a ", DataTypeName(host.dtype()),
                                   " value but dtype ", DataTypeName(dtype));
  if (DataTypeSize(dtype) == 0)
    return errors::Unimplemented("The GPU kernel of Const does not take ", DataTypeName(dtype), " values; place '",
                                 construction.name(), "' on a CPU");
  Tensor on_device;
  CLAB_RETURN_IF_ERROR(device->CopyHostToDevice(host, &on_device));
  // Wait here so a failed copy is reported while the graph is built, not in a later step.
  CLAB_RETURN_IF_ERROR(device->Sync());
  return std::unique_ptr<OpKernel>(new GpuConstKernel(std::move(on_device)));
}

}  // namespace clab::gpu
