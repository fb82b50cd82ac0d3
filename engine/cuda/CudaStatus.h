// Turns CUDA runtime and cuBLAS error codes into engine Status values whose messages name
// the call that failed, so a user sees "cudaMalloc of 1.0 GiB on GPU:0: out of memory"
// rather than a bare number.
#pragma once

#include "clab/core/Status.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string>

namespace clab::gpu {

// OK for cudaSuccess; RESOURCE_EXHAUSTED for allocation failures; INTERNAL otherwise.
// Also clears CUDA's sticky "last error" so a later, unrelated check does not see it.
Status FromCuda(cudaError_t error, const std::string& what);
Status FromCublas(cublasStatus_t status, const std::string& what);

}  // namespace clab::gpu
