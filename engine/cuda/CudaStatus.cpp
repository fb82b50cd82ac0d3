#include "CudaStatus.h"

namespace clab::gpu {

Status FromCuda(cudaError_t error, const std::string& what) {
  if (error == cudaSuccess) return OkStatus();
  cudaGetLastError();
  const std::string message = absl::StrCat(what, ": ", cudaGetErrorString(error), " (", cudaGetErrorName(error), ")");
  if (error == cudaErrorMemoryAllocation) return errors::ResourceExhausted(message);
  return errors::Internal(message);
}

Status FromCublas(cublasStatus_t status, const std::string& what) {
  if (status == CUBLAS_STATUS_SUCCESS) return OkStatus();
  const std::string message =
      absl::StrCat(what, ": ", cublasGetStatusString(status), " (", cublasGetStatusName(status), ")");
  if (status == CUBLAS_STATUS_ALLOC_FAILED) return errors::ResourceExhausted(message);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) return errors::Unimplemented(message);
  return errors::Internal(message);
}

}  // namespace clab::gpu
