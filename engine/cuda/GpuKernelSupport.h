// What every GPU kernel needs: its GpuDevice, its inputs in device memory, outputs
// allocated there with a clear out-of-memory error, and the types the kernels support.
#pragma once

#include "clab/runtime/OpKernel.h"

#include <string>

namespace clab::gpu {

class GpuDevice;

// The GpuDevice a kernel is being built for; INTERNAL when it is another kind of device.
StatusOr<GpuDevice*> GpuDeviceFor(const OpKernelConstruction& construction);

// Input i in this GPU's memory. Tensors fed by a client or received from another task
// arrive in host memory when the runtime does not copy them; they are copied here so a
// kernel never hands a host pointer to CUDA.
StatusOr<Tensor> InputOnDevice(OpKernelContext* ctx, int i, GpuDevice* device);

// Output i in device memory; RESOURCE_EXHAUSTED names the shape and device when the GPU
// is out of memory.
StatusOr<Tensor*> AllocateDeviceOutput(OpKernelContext* ctx, int i, DataType dtype, const TensorShape& shape,
                                       GpuDevice* device);

// The element-wise and MatMul kernels support float and double; other types stay on the
// CPU. The error is UNIMPLEMENTED so a caller can tell it from a bad graph.
Status CheckFloatingType(const std::string& op, DataType dtype);

}  // namespace clab::gpu
