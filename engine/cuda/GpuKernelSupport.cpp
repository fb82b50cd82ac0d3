#include "GpuKernelSupport.h"

#include "GpuDevice.h"

#include <new>

namespace clab::gpu {

StatusOr<GpuDevice*> GpuDeviceFor(const OpKernelConstruction& construction) {
  auto* device = dynamic_cast<GpuDevice*>(construction.device());
  if (device == nullptr)
    return errors::Internal("The GPU kernel of '", construction.name(), "' (", construction.op().name,
                            ") was built for ", construction.device() ? construction.device()->name() : "no device",
                            ", which is not a GPU of this plugin");
  return device;
}

StatusOr<Tensor> InputOnDevice(OpKernelContext* ctx, int i, GpuDevice* device) {
  const Tensor& input = ctx->input(i);
  if (!input.IsInitialized()) return errors::InvalidArgument("Input ", i, " of '", ctx->name(), "' has no value");
  if (!input.OnHost()) return input;
  Tensor on_device;
  CLAB_RETURN_IF_ERROR(device->CopyHostToDevice(input, &on_device));
  return on_device;
}

StatusOr<Tensor*> AllocateDeviceOutput(OpKernelContext* ctx, int i, DataType dtype, const TensorShape& shape,
                                       GpuDevice* device) {
  Tensor* out = nullptr;
  try {
    out = ctx->allocate_output(i, dtype, shape);
  } catch (const std::bad_alloc&) {
    out = nullptr;  // a tensor buffer throws when its allocator returns nothing
  }
  if (out != nullptr && shape.num_elements() > 0 && out->raw_data() != nullptr && out->OnHost())
    return errors::Internal("Output ", i, " of '", ctx->name(), "' on ", device->name(),
                            " was allocated in host memory");
  if (out == nullptr || (out->raw_data() == nullptr && shape.num_elements() > 0))
    return errors::ResourceExhausted("OOM when allocating tensor with shape ", shape.DebugString(), " and type ",
                                     DataTypeName(dtype), " on ", device->name(), " for '", ctx->name(), "'");
  return out;
}

Status CheckFloatingType(const std::string& op, DataType dtype) {
  if (dtype == DT_FLOAT || dtype == DT_DOUBLE) return OkStatus();
  return errors::Unimplemented("The GPU kernel of ", op, " supports float and double, not ", DataTypeName(dtype),
                               "; place the op on a CPU (for example with ", "allow_soft_placement)");
}

}  // namespace clab::gpu
