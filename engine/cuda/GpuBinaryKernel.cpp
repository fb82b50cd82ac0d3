#include "GpuBinaryKernel.h"

#include "CudaStatus.h"
#include "GpuDevice.h"
#include "GpuKernelSupport.h"

#include <algorithm>

namespace clab::gpu {
namespace {

// Whether numpy broadcasting accepts the pair at all (aligned from the last dimension,
// each pair equal or one of them 1).
bool Broadcastable(const TensorShape& a, const TensorShape& b) {
  const int rank = std::max(a.rank(), b.rank());
  for (int i = 1; i <= rank; ++i) {
    const int64_t da = i <= a.rank() ? a.dim(a.rank() - i) : 1;
    const int64_t db = i <= b.rank() ? b.dim(b.rank() - i) : 1;
    if (da != db && da != 1 && db != 1) return false;
  }
  return true;
}

// A single value that broadcasts to `other` without changing its shape.
bool IsSingleValueFor(const TensorShape& single, const TensorShape& other) {
  return single.num_elements() == 1 && single.rank() <= other.rank();
}

}  // namespace

KernelFactory GpuBinaryKernel::Factory(BinaryOp op) {
  return [op](OpKernelConstruction& construction) -> StatusOr<std::unique_ptr<OpKernel>> {
    CLAB_ASSIGN_OR_RETURN(GpuDevice * device, GpuDeviceFor(construction));
    const DataType dtype = construction.output_type(0);
    CLAB_RETURN_IF_ERROR(CheckFloatingType(construction.op().name, dtype));
    return std::unique_ptr<OpKernel>(new GpuBinaryKernel(device, op, dtype, construction.op().name));
  };
}

void GpuBinaryKernel::Compute(OpKernelContext* ctx) { ctx->SetStatus(Run(ctx)); }

Status GpuBinaryKernel::Run(OpKernelContext* ctx) {
  CLAB_RETURN_IF_ERROR(device_->Activate());
  CLAB_ASSIGN_OR_RETURN(Tensor a, InputOnDevice(ctx, 0, device_));
  CLAB_ASSIGN_OR_RETURN(Tensor b, InputOnDevice(ctx, 1, device_));
  if (a.dtype() != dtype_ || b.dtype() != dtype_)
    return errors::InvalidArgument(op_name_, " expects two ", DataTypeName(dtype_), " inputs, got ",
                                   DataTypeName(a.dtype()), " and ", DataTypeName(b.dtype()));
  const TensorShape& sa = a.shape();
  const TensorShape& sb = b.shape();
  int64_t a_step = 1, b_step = 1;
  TensorShape out_shape;
  if (sa == sb) {
    out_shape = sa;
  } else if (IsSingleValueFor(sa, sb)) {
    a_step = 0;
    out_shape = sb;
  } else if (IsSingleValueFor(sb, sa)) {
    b_step = 0;
    out_shape = sa;
  } else if (!Broadcastable(sa, sb)) {
    return errors::InvalidArgument("Incompatible shapes: ", sa.DebugString(), " vs. ", sb.DebugString());
  } else {
    return errors::Unimplemented("The GPU kernel of ", op_name_,
                                 " takes equal shapes or a single value with a tensor, not ", sa.DebugString(), " and ",
                                 sb.DebugString(), "; place it on a CPU (allow_soft_placement picks one)");
  }

  CLAB_ASSIGN_OR_RETURN(Tensor * out, AllocateDeviceOutput(ctx, 0, dtype_, out_shape, device_));
  const int64_t n = out_shape.num_elements();
  const cudaError_t error = dtype_ == DT_FLOAT
                                ? LaunchBinary<float>(op_, a.data<float>(), a_step, b.data<float>(), b_step,
                                                      out->data<float>(), n, device_->stream())
                                : LaunchBinary<double>(op_, a.data<double>(), a_step, b.data<double>(), b_step,
                                                       out->data<double>(), n, device_->stream());
  return FromCuda(error, absl::StrCat("Launching the GPU kernel of ", op_name_, " on ", device_->name()));
}

}  // namespace clab::gpu
