// Launchers for the element-wise CUDA kernels. This header is shared by the nvcc-compiled
// kernels and the host-compiled op kernels, so it stays free of engine headers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace clab::gpu {

enum class UnaryOp { kNeg, kSquare, kSqrt, kExp, kLog, kRelu, kSigmoid, kTanh };
enum class BinaryOp { kAdd, kSub, kMul, kDiv };

// y[i] = op(x[i]) for i < n, queued on `stream`. Returns the launch error (cudaSuccess
// when queued); errors during execution surface at the next synchronising call.
template <typename T>
cudaError_t LaunchUnary(UnaryOp op, const T* x, T* y, int64_t n, cudaStream_t stream);

// out[i] = op(a[i * a_step], b[i * b_step]) for i < n. A step of 0 repeats a single value,
// which is how a scalar operand is broadcast without a copy.
template <typename T>
cudaError_t LaunchBinary(BinaryOp op, const T* a, int64_t a_step, const T* b, int64_t b_step, T* out, int64_t n,
                         cudaStream_t stream);

}  // namespace clab::gpu
