// Element-wise unary math: Neg, Square, Sqrt, Exp, Log, Abs, Sign, Reciprocal, Rsqrt,
// Log1p, Floor, Ceil, Round. The float kernels go through Eigen
// arrays so the transcendental functions use Eigen's vectorised implementations.
#include "ops/MathOpsInternal.h"

#include <cmath>
#include <type_traits>

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

// Element-wise functors written as plain loops over one scalar function.
#define CLAB_UNARY_FUNCTOR(NAME, INTEGERS, CYCLES, EXPR) \
  template <typename T>                                  \
  struct NAME {                                          \
    static constexpr bool kIntegers = INTEGERS;          \
    static constexpr double kCyclesPerElement = CYCLES;  \
    static void Apply(const T* x, T* y, int64_t n) {     \
      for (int64_t i = 0; i < n; ++i) {                  \
        const T v = x[i];                                \
        y[i] = (EXPR);                                   \
      }                                                  \
    }                                                    \
  };

CLAB_UNARY_FUNCTOR(AbsFunctor, true, 1, v < T(0) ? WrappingSub(T(0), v) : v)
CLAB_UNARY_FUNCTOR(SignFunctor, true, 1, std::isnan(static_cast<double>(v)) ? v : T((T(0) < v) - (v < T(0))))
CLAB_UNARY_FUNCTOR(ReciprocalFunctor, false, 2, T(1) / v)
CLAB_UNARY_FUNCTOR(RsqrtFunctor, false, 5, T(1) / std::sqrt(v))
CLAB_UNARY_FUNCTOR(Log1pFunctor, false, 10, std::log1p(v))
CLAB_UNARY_FUNCTOR(FloorFunctor, false, 1, std::floor(v))
CLAB_UNARY_FUNCTOR(CeilFunctor, false, 1, std::ceil(v))
// Halves round to the even neighbour (banker's rounding), as numpy.round and tf.round.
CLAB_UNARY_FUNCTOR(RoundFunctor, true, 2, std::is_integral_v<T> ? v : T(std::nearbyint(v)))
#undef CLAB_UNARY_FUNCTOR

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
  RegisterUnary(registry, "Abs", kRealTypes, UnaryKernelFactory<AbsFunctor>(), "|x|, element-wise.");
  RegisterUnary(registry, "Sign", kRealTypes, UnaryKernelFactory<SignFunctor>(),
                "-1, 0 or 1 by the sign of x, element-wise (NaN stays NaN).");
  RegisterUnary(registry, "Reciprocal", kFloatTypes, UnaryKernelFactory<ReciprocalFunctor>(), "1 / x, element-wise.");
  RegisterUnary(registry, "Rsqrt", kFloatTypes, UnaryKernelFactory<RsqrtFunctor>(), "1 / sqrt(x), element-wise.");
  RegisterUnary(registry, "Log1p", kFloatTypes, UnaryKernelFactory<Log1pFunctor>(),
                "log(1 + x), element-wise, exact for small x.");
  RegisterUnary(registry, "Floor", kFloatTypes, UnaryKernelFactory<FloorFunctor>(), "Largest integer <= x.");
  RegisterUnary(registry, "Ceil", kFloatTypes, UnaryKernelFactory<CeilFunctor>(), "Smallest integer >= x.");
  RegisterUnary(registry, "Round", kRealTypes, UnaryKernelFactory<RoundFunctor>(), "Nearest integer, halves to even.");
}

}  // namespace math_internal
}  // namespace clab
