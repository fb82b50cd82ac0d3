#include "GpuMatMulKernel.h"

#include "CudaStatus.h"
#include "GpuDevice.h"
#include "GpuKernelSupport.h"

#include <limits>

namespace clab::gpu {
namespace {

// cuBLAS is column-major and tensors are row-major. A row-major M x N buffer read as
// column-major is its N x M transpose, so C = op(A) op(B) is computed as
// C^T = op(B)^T op(A)^T: swap the operands, keep each one's transpose flag, and let the
// leading dimensions be the row lengths of the stored matrices.
template <typename T>
cublasStatus_t Gemm(cublasHandle_t handle, cublasOperation_t op_b, cublasOperation_t op_a, int n, int m, int k,
                    const T* b, int ldb, const T* a, int lda, T* c, int ldc);

template <>
cublasStatus_t Gemm<float>(cublasHandle_t handle, cublasOperation_t op_b, cublasOperation_t op_a, int n, int m, int k,
                           const float* b, int ldb, const float* a, int lda, float* c, int ldc) {
  const float one = 1.0f, zero = 0.0f;
  return cublasSgemm(handle, op_b, op_a, n, m, k, &one, b, ldb, a, lda, &zero, c, ldc);
}

template <>
cublasStatus_t Gemm<double>(cublasHandle_t handle, cublasOperation_t op_b, cublasOperation_t op_a, int n, int m, int k,
                            const double* b, int ldb, const double* a, int lda, double* c, int ldc) {
  const double one = 1.0, zero = 0.0;
  return cublasDgemm(handle, op_b, op_a, n, m, k, &one, b, ldb, a, lda, &zero, c, ldc);
}

bool FitsInInt(int64_t v) { return v <= std::numeric_limits<int>::max(); }

}  // namespace

StatusOr<std::unique_ptr<OpKernel>> GpuMatMulKernel::Create(OpKernelConstruction& construction) {
  CLAB_ASSIGN_OR_RETURN(GpuDevice * device, GpuDeviceFor(construction));
  const DataType dtype = construction.output_type(0);
  CLAB_RETURN_IF_ERROR(CheckFloatingType("MatMul", dtype));
  bool transpose_a = false, transpose_b = false;
  CLAB_RETURN_IF_ERROR(construction.GetAttr("transpose_a", &transpose_a));
  CLAB_RETURN_IF_ERROR(construction.GetAttr("transpose_b", &transpose_b));
  return std::unique_ptr<OpKernel>(new GpuMatMulKernel(device, dtype, transpose_a, transpose_b));
}

void GpuMatMulKernel::Compute(OpKernelContext* ctx) { ctx->SetStatus(Run(ctx)); }

Status GpuMatMulKernel::Run(OpKernelContext* ctx) {
  CLAB_RETURN_IF_ERROR(device_->Activate());
  CLAB_ASSIGN_OR_RETURN(Tensor a, InputOnDevice(ctx, 0, device_));
  CLAB_ASSIGN_OR_RETURN(Tensor b, InputOnDevice(ctx, 1, device_));
  for (int i = 0; i < 2; ++i) {
    const Tensor& t = i == 0 ? a : b;
    if (!t.shape().IsMatrix())
      return errors::InvalidArgument("In[", i, "] is not a matrix. Instead it has shape ", t.shape().DebugString());
    if (t.dtype() != dtype_)
      return errors::InvalidArgument("In[", i, "] has type ", DataTypeName(t.dtype()), ", expected ",
                                     DataTypeName(dtype_));
  }
  const int64_t m = a.shape().dim(transpose_a_ ? 1 : 0);
  const int64_t k = a.shape().dim(transpose_a_ ? 0 : 1);
  const int64_t k_b = b.shape().dim(transpose_b_ ? 1 : 0);
  const int64_t n = b.shape().dim(transpose_b_ ? 0 : 1);
  if (k != k_b)
    return errors::InvalidArgument("Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                                   ", In[1]: ", b.shape().DebugString());
  if (!FitsInInt(m) || !FitsInInt(n) || !FitsInInt(k))
    return errors::Unimplemented("MatMul on the GPU takes dimensions below 2^31; got In[0]: ", a.shape().DebugString(),
                                 ", In[1]: ", b.shape().DebugString());

  CLAB_ASSIGN_OR_RETURN(Tensor * out, AllocateDeviceOutput(ctx, 0, dtype_, TensorShape{m, n}, device_));
  if (m == 0 || n == 0) return OkStatus();
  if (k == 0)  // an empty sum: cuBLAS rejects a zero leading dimension, so zero C directly
    return FromCuda(
        cudaMemsetAsync(out->raw_data(), 0, static_cast<size_t>(m * n) * DataTypeSize(dtype_), device_->stream()),
        "Zero-filling the MatMul output");

  const cublasOperation_t op_a = transpose_a_ ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = transpose_b_ ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int lda = static_cast<int>(a.shape().dim(1));
  const int ldb = static_cast<int>(b.shape().dim(1));
  cublasStatus_t status;
  if (dtype_ == DT_FLOAT) {
    status = Gemm<float>(device_->blas(), op_b, op_a, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k),
                         b.data<float>(), ldb, a.data<float>(), lda, out->data<float>(), static_cast<int>(n));
  } else {
    status = Gemm<double>(device_->blas(), op_b, op_a, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k),
                          b.data<double>(), ldb, a.data<double>(), lda, out->data<double>(), static_cast<int>(n));
  }
  return FromCublas(status, absl::StrCat("cuBLAS gemm for ", a.shape().DebugString(), " x ", b.shape().DebugString(),
                                         " on ", device_->name()));
}

}  // namespace clab::gpu
