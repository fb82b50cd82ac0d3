// Element-wise kernels: one grid-stride loop per op and type. The math calls are spelled
// per type (expf vs exp) so float stays in single precision on the device.
#include "CwiseOps.h"

#include <algorithm>

namespace clab::gpu {
namespace {

constexpr int kThreadsPerBlock = 256;
// Enough blocks to fill any current GPU several times over; the grid-stride loop covers
// larger tensors, so the grid size never overflows.
constexpr int64_t kMaxBlocks = 1 << 16;

__device__ inline float DevSqrt(float x) { return sqrtf(x); }
__device__ inline double DevSqrt(double x) { return sqrt(x); }
__device__ inline float DevExp(float x) { return expf(x); }
__device__ inline double DevExp(double x) { return exp(x); }
__device__ inline float DevLog(float x) { return logf(x); }
__device__ inline double DevLog(double x) { return log(x); }
__device__ inline float DevTanh(float x) { return tanhf(x); }
__device__ inline double DevTanh(double x) { return tanh(x); }

struct NegFn {
  template <typename T>
  __device__ T operator()(T x) const {
    return -x;
  }
};
struct SquareFn {
  template <typename T>
  __device__ T operator()(T x) const {
    return x * x;
  }
};
struct SqrtFn {
  template <typename T>
  __device__ T operator()(T x) const {
    return DevSqrt(x);
  }
};
struct ExpFn {
  template <typename T>
  __device__ T operator()(T x) const {
    return DevExp(x);
  }
};
struct LogFn {
  template <typename T>
  __device__ T operator()(T x) const {
    return DevLog(x);
  }
};
struct ReluFn {
  template <typename T>
  __device__ T operator()(T x) const {
    return x > T(0) ? x : T(0);
  }
};
struct SigmoidFn {
  template <typename T>
  __device__ T operator()(T x) const {
    return T(1) / (T(1) + DevExp(-x));
  }
};
struct TanhFn {
  template <typename T>
  __device__ T operator()(T x) const {
    return DevTanh(x);
  }
};

struct AddFn {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return a + b;
  }
};
struct SubFn {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return a - b;
  }
};
struct MulFn {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return a * b;
  }
};
struct DivFn {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return a / b;
  }
};

template <typename T, typename Fn>
__global__ void UnaryKernel(const T* __restrict__ x, T* __restrict__ y, int64_t n, Fn fn) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = fn(x[i]);
}

template <typename T, typename Fn>
__global__ void BinaryKernel(const T* __restrict__ a, int64_t a_step, const T* __restrict__ b, int64_t b_step,
                             T* __restrict__ out, int64_t n, Fn fn) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = fn(a[i * a_step], b[i * b_step]);
}

unsigned BlocksFor(int64_t n) {
  return static_cast<unsigned>(std::min<int64_t>((n + kThreadsPerBlock - 1) / kThreadsPerBlock, kMaxBlocks));
}

template <typename T, typename Fn>
cudaError_t Unary(const T* x, T* y, int64_t n, cudaStream_t stream, Fn fn) {
  if (n <= 0) return cudaSuccess;
  UnaryKernel<T, Fn><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(x, y, n, fn);
  return cudaGetLastError();
}

template <typename T, typename Fn>
cudaError_t Binary(const T* a, int64_t a_step, const T* b, int64_t b_step, T* out, int64_t n, cudaStream_t stream,
                   Fn fn) {
  if (n <= 0) return cudaSuccess;
  BinaryKernel<T, Fn><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(a, a_step, b, b_step, out, n, fn);
  return cudaGetLastError();
}

}  // namespace

template <typename T>
cudaError_t LaunchUnary(UnaryOp op, const T* x, T* y, int64_t n, cudaStream_t stream) {
  switch (op) {
    case UnaryOp::kNeg: return Unary(x, y, n, stream, NegFn{});
    case UnaryOp::kSquare: return Unary(x, y, n, stream, SquareFn{});
    case UnaryOp::kSqrt: return Unary(x, y, n, stream, SqrtFn{});
    case UnaryOp::kExp: return Unary(x, y, n, stream, ExpFn{});
    case UnaryOp::kLog: return Unary(x, y, n, stream, LogFn{});
    case UnaryOp::kRelu: return Unary(x, y, n, stream, ReluFn{});
    case UnaryOp::kSigmoid: return Unary(x, y, n, stream, SigmoidFn{});
    case UnaryOp::kTanh: return Unary(x, y, n, stream, TanhFn{});
  }
  return cudaErrorInvalidValue;
}

template <typename T>
cudaError_t LaunchBinary(BinaryOp op, const T* a, int64_t a_step, const T* b, int64_t b_step, T* out, int64_t n,
                         cudaStream_t stream) {
  switch (op) {
    case BinaryOp::kAdd: return Binary(a, a_step, b, b_step, out, n, stream, AddFn{});
    case BinaryOp::kSub: return Binary(a, a_step, b, b_step, out, n, stream, SubFn{});
    case BinaryOp::kMul: return Binary(a, a_step, b, b_step, out, n, stream, MulFn{});
    case BinaryOp::kDiv: return Binary(a, a_step, b, b_step, out, n, stream, DivFn{});
  }
  return cudaErrorInvalidValue;
}

template cudaError_t LaunchUnary<float>(UnaryOp, const float*, float*, int64_t, cudaStream_t);
template cudaError_t LaunchUnary<double>(UnaryOp, const double*, double*, int64_t, cudaStream_t);
template cudaError_t LaunchBinary<float>(BinaryOp, const float*, int64_t, const float*, int64_t, float*, int64_t,
                                         cudaStream_t);
template cudaError_t LaunchBinary<double>(BinaryOp, const double*, int64_t, const double*, int64_t, double*, int64_t,
                                          cudaStream_t);

}  // namespace clab::gpu
