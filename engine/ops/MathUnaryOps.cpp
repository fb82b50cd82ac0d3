// Element-wise unary math: Neg, Square, Sqrt, Exp, Log. The float kernels go through Eigen
// arrays so the transcendental functions use Eigen's vectorised implementations.
#include "ops/MathOpsInternal.h"

namespace clab {
namespace math_internal {
namespace {

template <typename T>
struct NegFunctor {
  static constexpr bool kIntegers = true;
  static constexpr double kCyclesPerElement = 1;
  static void Apply(const T* x, T* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = WrappingSub(T(0), x[i]);
  }
};

template <typename T>
struct SquareFunctor {
  static constexpr bool kIntegers = true;
  static constexpr double kCyclesPerElement = 1;
  static void Apply(const T* x, T* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = WrappingMul(x[i], x[i]);
  }
};

template <typename T>
struct SqrtFunctor {
  static constexpr bool kIntegers = false;
  static constexpr double kCyclesPerElement = 4;
  static void Apply(const T* x, T* y, int64_t n) { ArrayMap<T>(y, n) = ConstArrayMap<T>(x, n).sqrt(); }
};

template <typename T>
struct ExpFunctor {
  static constexpr bool kIntegers = false;
  static constexpr double kCyclesPerElement = 10;
  static void Apply(const T* x, T* y, int64_t n) { ArrayMap<T>(y, n) = ConstArrayMap<T>(x, n).exp(); }
};

template <typename T>
struct LogFunctor {
  static constexpr bool kIntegers = false;
  static constexpr double kCyclesPerElement = 10;
  static void Apply(const T* x, T* y, int64_t n) { ArrayMap<T>(y, n) = ConstArrayMap<T>(x, n).log(); }
};

void RegisterUnary(OpRegistry& registry, const char* name, const char* types, KernelFactory factory,
                   const char* summary) {
  registry.Register(name)
      .Input("x: T")
      .Output("y: T")
      .Attr(types)
      .SetShapeFn(UnchangedShape)
      .Kernel("CPU", std::move(factory))
      .Summary(summary)
      .Group("math");
}

constexpr const char* kRealTypes = "T: {float, double, int32, int64}";
constexpr const char* kFloatTypes = "T: {float, double}";

}  // namespace

void RegisterUnaryMathOps(OpRegistry& registry) {
  RegisterUnary(registry, "Neg", kRealTypes, UnaryKernelFactory<NegFunctor>(), "-x, element-wise.");
  RegisterUnary(registry, "Square", kRealTypes, UnaryKernelFactory<SquareFunctor>(), "x * x, element-wise.");
  RegisterUnary(registry, "Sqrt", kFloatTypes, UnaryKernelFactory<SqrtFunctor>(),
                "Square root, element-wise (NaN for negative x).");
  RegisterUnary(registry, "Exp", kFloatTypes, UnaryKernelFactory<ExpFunctor>(), "e^x, element-wise.");
  RegisterUnary(registry, "Log", kFloatTypes, UnaryKernelFactory<LogFunctor>(),
                "Natural logarithm, element-wise (-inf at 0, NaN below).");
}

}  // namespace math_internal
}  // namespace clab
