// Shared machinery of the math, nn and random kernels: splitting element-wise work across
// the device's thread pool, kernel error messages that name the node, and the element-wise
// kernel template the unary math and nn ops are built from.
//
// Include this header first: it turns on Eigen's thread-pool device before any Eigen header.
#pragma once

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include <unsupported/Eigen/CXX11/Tensor>

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/Device.h"
#include "clab/runtime/OpKernel.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>

namespace clab {
namespace math_internal {

// Below this many estimated cycles a kernel runs on the calling thread: handing work to
// other threads costs a few microseconds, more than small tensors take to compute.
inline constexpr double kMinCyclesToParallelize = 64 * 1024;

// Runs fn(begin, end) over [0, total) in blocks on `device`'s pool and on the calling
// thread. The caller claims blocks too and only waits for blocks other threads have already
// started, so it cannot deadlock when called from a thread of the same pool (the executor
// runs kernels there).
void ParallelForOnPool(const Eigen::ThreadPoolDevice& device, int64_t total, double cycles_per_unit,
                       const std::function<void(int64_t, int64_t)>& fn);

// The device's Eigen pool, or nullptr (no device, a device without one, a one-thread pool).
inline const Eigen::ThreadPoolDevice* PoolOf(const OpKernelContext* ctx) {
  const Device* device = ctx->device();
  const Eigen::ThreadPoolDevice* pool = device != nullptr ? device->eigen_cpu_device() : nullptr;
  return pool != nullptr && pool->numThreads() > 1 ? pool : nullptr;
}

// fn(begin, end) over [0, total): inline for small work, else split across the pool.
template <typename Fn>
void ParallelForRange(const OpKernelContext* ctx, int64_t total, double cycles_per_unit, Fn&& fn) {
  if (total <= 0) return;
  const Eigen::ThreadPoolDevice* pool = PoolOf(ctx);
  if (pool == nullptr || static_cast<double>(total) * cycles_per_unit < kMinCyclesToParallelize) {
    fn(int64_t{0}, total);
    return;
  }
  ParallelForOnPool(*pool, total, cycles_per_unit, std::function<void(int64_t, int64_t)>(fn));
}

// Kernel errors end with the node in TensorFlow's form ("\n\t [[{{node MatMul}}]]"), so a
// message names its node whether the kernel runs in an executor or alone in a test.
std::string NodeSuffix(const std::string& node_name);

template <typename... Args>
Status KernelInvalidArgument(const OpKernelContext* ctx, const Args&... args) {
  return errors::InvalidArgument(args..., NodeSuffix(ctx->name()));
}

// Integer arithmetic that wraps on overflow (as TensorFlow's kernels do in practice) instead
// of being undefined behaviour.
template <typename T>
inline T WrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename T>
inline T WrappingSub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <typename T>
inline T WrappingMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;

// An element-wise op y = f(x) of the same shape. `Functor<T>` provides
//   static constexpr bool kIntegers;            // also defined for int32/int64
//   static constexpr double kCyclesPerElement;  // rough cost, decides parallelism
//   static void Apply(const T* x, T* y, int64_t n);
template <typename T, typename Functor>
class UnaryElementwiseKernel : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = ctx->allocate_output(0, x.dtype(), x.shape());
    if (y == nullptr) return;
    const T* in = x.data<T>();
    T* out = y->data<T>();
    // Work is handed out in aligned packets of elements so that the same elements take
    // Eigen's vectorised path (which may differ from the scalar one in the last bit)
    // however the range is split: results do not depend on the thread count.
    constexpr int64_t kPacket = 16;
    const int64_t n = x.NumElements();
    ParallelForRange(ctx, (n + kPacket - 1) / kPacket, Functor::kCyclesPerElement * kPacket,
                     [in, out, n](int64_t begin, int64_t end) {
                       const int64_t first = begin * kPacket, last = std::min(n, end * kPacket);
                       Functor::Apply(in + first, out + first, last - first);
                     });
  }
};

template <typename T, template <typename> class Functor>
StatusOr<std::unique_ptr<OpKernel>> MakeUnaryKernelFor(const OpKernelConstruction& construction) {
  if constexpr (std::is_floating_point_v<T> || Functor<T>::kIntegers) {
    return std::unique_ptr<OpKernel>(new UnaryElementwiseKernel<T, Functor<T>>());
  } else {
    return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                   ") has no CPU kernel for type ", DataTypeName(DataTypeOf<T>::value));
  }
}

// The kernel factory of an element-wise op, dispatching on the type of input 0.
template <template <typename> class Functor>
KernelFactory UnaryKernelFactory() {
  return [](OpKernelConstruction& construction) -> StatusOr<std::unique_ptr<OpKernel>> {
    switch (construction.input_type(0)) {
      case DT_FLOAT: return MakeUnaryKernelFor<float, Functor>(construction);
      case DT_DOUBLE: return MakeUnaryKernelFor<double, Functor>(construction);
      case DT_INT32: return MakeUnaryKernelFor<int32_t, Functor>(construction);
      case DT_INT64: return MakeUnaryKernelFor<int64_t, Functor>(construction);
      default: break;
    }
    return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                   ") has no CPU kernel for type ", DataTypeName(construction.input_type(0)));
  };
}

// Shape function of ops whose output has the shape of input 0.
Status UnchangedShape(ShapeContext& ctx);

// Registration of the math op families (MathOps.cpp calls them in RegisterMathOps).
void RegisterMatMulOp(OpRegistry& registry);
void RegisterBinaryMathOps(OpRegistry& registry);
void RegisterUnaryMathOps(OpRegistry& registry);
void RegisterReductionOps(OpRegistry& registry);

}  // namespace math_internal
}  // namespace clab
