// Element-wise binary arithmetic with numpy-style broadcasting: Add, AddV2, Sub, Mul,
// RealDiv.
//
// Broadcasting is planned once per call: dimensions of size 1 in the output are dropped and
// neighbouring dimensions that broadcast the same way are merged, so [N,C] + [C] becomes
// two dimensions whatever the ranks, and the innermost loop always runs over contiguous
// memory (or a repeated scalar). Same-shape and scalar operands skip the plan entirely.
#include "ops/MathOpsInternal.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace clab {
namespace math_internal {
namespace {

struct AddFn {
  static constexpr double kCycles = 1;
  template <typename T>
  T operator()(T x, T y) const {
    return WrappingAdd(x, y);
  }
};
struct SubFn {
  static constexpr double kCycles = 1;
  template <typename T>
  T operator()(T x, T y) const {
    return WrappingSub(x, y);
  }
};
struct MulFn {
  static constexpr double kCycles = 1;
  template <typename T>
  T operator()(T x, T y) const {
    return WrappingMul(x, y);
  }
};
struct RealDivFn {
  static constexpr double kCycles = 5;
  template <typename T>
  T operator()(T x, T y) const {
    return x / y;
  }
};

// Maximum and Minimum propagate NaN from either side, as numpy's maximum/minimum do.
struct MaximumFn {
  static constexpr double kCycles = 1;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<T>::quiet_NaN();
    return x < y ? y : x;
  }
};
struct MinimumFn {
  static constexpr double kCycles = 1;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<T>::quiet_NaN();
    return y < x ? y : x;
  }
};
// Division rounding toward negative infinity, and the remainder taking the divisor's sign:
// x == FloorDiv(x, y) * y + FloorMod(x, y), as Python's // and %. Integer kernels refuse a
// zero divisor before computing (see kChecksZeroDivisor).
struct FloorDivFn {
  static constexpr double kCycles = 5;
  static constexpr bool kChecksZeroDivisor = true;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y == -1) return WrappingSub(T(0), x);  // the one quotient that can overflow
      T q = x / y;
      if (x % y != 0 && ((x < 0) != (y < 0))) --q;
      return q;
    } else {
      return std::floor(x / y);
    }
  }
};
struct FloorModFn {
  static constexpr double kCycles = 5;
  static constexpr bool kChecksZeroDivisor = true;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y == -1) return T(0);
      T r = x % y;
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      return r;
    } else {
      T r = std::fmod(x, y);
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      return r;
    }
  }
};
struct PowFn {
  static constexpr double kCycles = 20;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y < 0) return x == 1 ? T(1) : x == -1 ? ((y & 1) ? T(-1) : T(1)) : T(0);
      T result = 1, base = x;
      for (T e = y; e > 0; e >>= 1) {
        if (e & 1) result = WrappingMul(result, base);
        base = WrappingMul(base, base);
      }
      return result;
    } else {
      return std::pow(x, y);
    }
  }
};
struct SquaredDifferenceFn {
  static constexpr double kCycles = 2;
  template <typename T>
  T operator()(T x, T y) const {
    const T d = WrappingSub(x, y);
    return WrappingMul(d, d);
  }
};
// x / y, and 0 where y is 0 (even for x NaN or infinite).
struct DivNoNanFn {
  static constexpr double kCycles = 5;
  template <typename T>
  T operator()(T x, T y) const {
    return y == T(0) ? T(0) : x / y;
  }
};
struct GreaterFn {
  static constexpr double kCycles = 1;
  template <typename T>
  bool operator()(T x, T y) const {
    return x > y;
  }
};
struct GreaterEqualFn {
  static constexpr double kCycles = 1;
  template <typename T>
  bool operator()(T x, T y) const {
    return x >= y;
  }
};
struct LessFn {
  static constexpr double kCycles = 1;
  template <typename T>
  bool operator()(T x, T y) const {
    return x < y;
  }
};
struct LessEqualFn {
  static constexpr double kCycles = 1;
  template <typename T>
  bool operator()(T x, T y) const {
    return x <= y;
  }
};
struct NotEqualFn {
  static constexpr double kCycles = 1;
  static constexpr bool kAcceptsBool = true;
  static constexpr bool kAcceptsString = true;
  template <typename T>
  bool operator()(const T& x, const T& y) const {
    return x != y;
  }
};
struct EqualFn {
  static constexpr double kCycles = 1;
  static constexpr bool kAcceptsBool = true;
  static constexpr bool kAcceptsString = true;
  template <typename T>
  bool operator()(const T& x, const T& y) const {
    return x == y;
  }
};
struct LogicalAndFn {
  static constexpr double kCycles = 1;
  static constexpr bool kAcceptsBool = true;
  template <typename T>
  bool operator()(T x, T y) const {
    return x && y;
  }
};
struct LogicalOrFn {
  static constexpr double kCycles = 1;
  static constexpr bool kAcceptsBool = true;
  template <typename T>
  bool operator()(T x, T y) const {
    return x || y;
  }
};

template <typename Op, typename = void>
struct ChecksZeroDivisor : std::false_type {};
template <typename Op>
struct ChecksZeroDivisor<Op, std::void_t<decltype(Op::kChecksZeroDivisor)>> : std::true_type {};

template <typename Op, typename = void>
struct AcceptsString : std::false_type {};
template <typename Op>
struct AcceptsString<Op, std::void_t<decltype(Op::kAcceptsString)>> : std::true_type {};

template <typename Op, typename = void>
struct AcceptsBool : std::false_type {};
template <typename Op>
struct AcceptsBool<Op, std::void_t<decltype(Op::kAcceptsBool)>> : std::true_type {};

// The output shape of broadcasting x against y, and the collapsed iteration space.
struct BroadcastPlan {
  TensorShape output_shape;
  std::vector<int64_t> dims;       // collapsed output dimensions, outermost first
  std::vector<int64_t> x_strides;  // element strides of x per collapsed dim; 0 = repeated
  std::vector<int64_t> y_strides;
};

std::string IncompatibleShapes(const TensorShape& x, const TensorShape& y) {
  return absl::StrCat("Incompatible shapes: ", x.DebugString(), " vs. ", y.DebugString());
}

// Returns false when the shapes do not broadcast.
bool PlanBroadcast(const TensorShape& x, const TensorShape& y, BroadcastPlan* plan) {
  const int rank = std::max(x.rank(), y.rank());
  std::vector<int64_t> out_dims(static_cast<size_t>(rank));
  // Per output dimension: its size and whether x / y repeat along it.
  std::vector<int64_t> sizes;
  std::vector<bool> x_repeats, y_repeats;
  for (int i = 0; i < rank; ++i) {
    const int xi = i - (rank - x.rank()), yi = i - (rank - y.rank());
    const int64_t xd = xi >= 0 ? x.dim(xi) : 1;
    const int64_t yd = yi >= 0 ? y.dim(yi) : 1;
    int64_t od;
    if (xd == yd || yd == 1) {
      od = xd;
    } else if (xd == 1) {
      od = yd;
    } else {
      return false;
    }
    out_dims[static_cast<size_t>(i)] = od;
    if (od == 1) continue;  // contributes nothing to the iteration
    const bool xr = xd == 1, yr = yd == 1;
    if (!sizes.empty() && x_repeats.back() == xr && y_repeats.back() == yr) {
      sizes.back() *= od;
    } else {
      sizes.push_back(od);
      x_repeats.push_back(xr);
      y_repeats.push_back(yr);
    }
  }
  plan->output_shape = TensorShape(std::move(out_dims));
  plan->dims = sizes;
  const size_t n = sizes.size();
  plan->x_strides.assign(n, 0);
  plan->y_strides.assign(n, 0);
  int64_t x_stride = 1, y_stride = 1;
  for (size_t i = n; i-- > 0;) {
    if (!x_repeats[i]) {
      plan->x_strides[i] = x_stride;
      x_stride *= sizes[i];
    }
    if (!y_repeats[i]) {
      plan->y_strides[i] = y_stride;
      y_stride *= sizes[i];
    }
  }
  return true;
}

// Output elements [begin, end) of a broadcast operation, walking the collapsed dimensions
// with an odometer and running the innermost dimension as a tight loop.
template <typename T, typename Op, typename Out>
void BroadcastRange(const BroadcastPlan& plan, const T* x, const T* y, Out* out, int64_t begin, int64_t end) {
  const Op op;
  const size_t rank = plan.dims.size();
  const int64_t inner = plan.dims.back();
  const int64_t x_inner = plan.x_strides.back(), y_inner = plan.y_strides.back();
  // Position of `begin`: its outer multi-index and offset within the innermost dimension.
  std::vector<int64_t> index(rank, 0);
  int64_t rest = begin / inner;
  int64_t offset = begin % inner;
  int64_t x_pos = 0, y_pos = 0;
  for (size_t i = rank - 1; i-- > 0;) {
    index[i] = rest % plan.dims[i];
    rest /= plan.dims[i];
    x_pos += index[i] * plan.x_strides[i];
    y_pos += index[i] * plan.y_strides[i];
  }
  int64_t pos = begin;
  while (pos < end) {
    const int64_t run = std::min(inner - offset, end - pos);
    const T* xs = x + x_pos + offset * x_inner;
    const T* ys = y + y_pos + offset * y_inner;
    Out* o = out + pos;
    if (x_inner == 1 && y_inner == 1) {
      for (int64_t j = 0; j < run; ++j) o[j] = op(xs[j], ys[j]);
    } else if (x_inner == 1) {
      const T yv = *ys;
      for (int64_t j = 0; j < run; ++j) o[j] = op(xs[j], yv);
    } else if (y_inner == 1) {
      const T xv = *xs;
      for (int64_t j = 0; j < run; ++j) o[j] = op(xv, ys[j]);
    } else {
      for (int64_t j = 0; j < run; ++j) o[j] = op(*xs, *ys);
    }
    pos += run;
    offset = 0;
    // Advance the odometer over the outer dimensions.
    for (size_t i = rank - 1; i-- > 0;) {
      x_pos += plan.x_strides[i];
      y_pos += plan.y_strides[i];
      if (++index[i] < plan.dims[i]) break;
      x_pos -= plan.x_strides[i] * plan.dims[i];
      y_pos -= plan.y_strides[i] * plan.dims[i];
      index[i] = 0;
    }
  }
}

// The output element type of Op on T: T for arithmetic, bool for comparisons.
template <typename T, typename Op>
using OutOf = decltype(std::declval<const Op&>()(T(), T()));

template <typename T, typename Op>
class BinaryKernel : public OpKernel {
  using Out = OutOf<T, Op>;

 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    const T* xd = x.data<T>();
    const T* yd = y.data<T>();
    const Op op;
    if constexpr (ChecksZeroDivisor<Op>::value && std::is_integral_v<T>) {
      for (int64_t i = 0, i_end = y.NumElements(); i < i_end; ++i)
        if (yd[i] == 0) return ctx->SetStatus(KernelInvalidArgument(ctx, "Integer division by zero"));
    }

    // Fast paths need no plan: equal shapes, or a one-element operand of no higher rank.
    if (x.shape() == y.shape()) {
      Out* out = Allocate(ctx, x.shape());
      if (out == nullptr) return;
      ParallelForRange(ctx, x.NumElements(), Op::kCycles, [=](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) out[i] = op(xd[i], yd[i]);
      });
      return;
    }
    if (y.NumElements() == 1 && y.shape().rank() <= x.shape().rank()) {
      Out* out = Allocate(ctx, x.shape());
      if (out == nullptr) return;
      const T yv = *yd;
      ParallelForRange(ctx, x.NumElements(), Op::kCycles, [=](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) out[i] = op(xd[i], yv);
      });
      return;
    }
    if (x.NumElements() == 1 && x.shape().rank() <= y.shape().rank()) {
      Out* out = Allocate(ctx, y.shape());
      if (out == nullptr) return;
      const T xv = *xd;
      ParallelForRange(ctx, y.NumElements(), Op::kCycles, [=](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) out[i] = op(xv, yd[i]);
      });
      return;
    }

    BroadcastPlan plan;
    if (!PlanBroadcast(x.shape(), y.shape(), &plan)) {
      ctx->SetStatus(KernelInvalidArgument(ctx, IncompatibleShapes(x.shape(), y.shape())));
      return;
    }
    Out* out = Allocate(ctx, plan.output_shape);
    if (out == nullptr) return;
    const int64_t total = plan.output_shape.num_elements();
    if (total == 0) return;
    if (plan.dims.empty()) {  // every dimension is 1: a single element
      out[0] = op(xd[0], yd[0]);
      return;
    }
    // Each block re-derives its starting position, which costs about one division per
    // collapsed dimension: negligible next to the block itself.
    ParallelForRange(ctx, total, Op::kCycles + 0.5, [&plan, xd, yd, out](int64_t b, int64_t e) {
      BroadcastRange<T, Op, Out>(plan, xd, yd, out, b, e);
    });
  }

 private:
  static Out* Allocate(OpKernelContext* ctx, const TensorShape& shape) {
    Tensor* out = ctx->allocate_output(0, DataTypeOf<Out>::value, shape);
    return out != nullptr ? out->data<Out>() : nullptr;
  }
};

template <typename Op, bool kIntegers>
KernelFactory BinaryKernelFactory() {
  return [](OpKernelConstruction& construction) -> StatusOr<std::unique_ptr<OpKernel>> {
    switch (construction.input_type(0)) {
      case DT_BOOL:
        if constexpr (AcceptsBool<Op>::value) return std::unique_ptr<OpKernel>(new BinaryKernel<bool, Op>());
        break;
      case DT_STRING:
        if constexpr (AcceptsString<Op>::value) return std::unique_ptr<OpKernel>(new BinaryKernel<std::string, Op>());
        break;
      case DT_FLOAT: return std::unique_ptr<OpKernel>(new BinaryKernel<float, Op>());
      case DT_DOUBLE: return std::unique_ptr<OpKernel>(new BinaryKernel<double, Op>());
      case DT_INT32:
        if constexpr (kIntegers) return std::unique_ptr<OpKernel>(new BinaryKernel<int32_t, Op>());
        break;
      case DT_INT64:
        if constexpr (kIntegers) return std::unique_ptr<OpKernel>(new BinaryKernel<int64_t, Op>());
        break;
      default: break;
    }
    return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                   ") has no CPU kernel for type ", DataTypeName(construction.input_type(0)));
  };
}

// Static broadcasting of partially known shapes, as TensorFlow's shape inference does: an
// unknown dimension against 1 stays unknown, against a known size > 1 takes that size.
Status BroadcastShape(ShapeContext& ctx) {
  const PartialShape& x = ctx.input_shape(0);
  const PartialShape& y = ctx.input_shape(1);
  if (!x.known_rank() || !y.known_rank()) {
    ctx.set_output(0, PartialShape::Unknown());
    return OkStatus();
  }
  const int rank = std::max(x.rank(), y.rank());
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    const int xi = i - (rank - x.rank()), yi = i - (rank - y.rank());
    const int64_t xd = xi >= 0 ? x.dim(xi) : 1;
    const int64_t yd = yi >= 0 ? y.dim(yi) : 1;
    int64_t od;
    if (xd == 1) {
      od = yd;
    } else if (yd == 1) {
      od = xd;
    } else if (xd < 0) {
      od = yd;  // unknown or known > 1: either way y's size (x must match it)
    } else if (yd < 0 || xd == yd) {
      od = xd;
    } else {
      return ctx.MakeError(absl::StrCat("Dimensions must be equal, but are ", xd, " and ", yd));
    }
    dims[static_cast<size_t>(i)] = od;
  }
  ctx.set_output(0, PartialShape(std::move(dims)));
  return OkStatus();
}

template <typename Op, bool kIntegers>
void RegisterBinary(OpRegistry& registry, const char* name, const char* summary, const char* output = "z: T",
                    const char* types = nullptr) {
  registry.Register(name)
      .Input("x: T")
      .Input("y: T")
      .Output(output)
      .Attr(types != nullptr ? types
            : kIntegers      ? "T: {float, double, int32, int64}"
                             : "T: {float, double}")
      .SetShapeFn(BroadcastShape)
      .Kernel("CPU", BinaryKernelFactory<Op, kIntegers>())
      .Summary(summary)
      .Group("math");
}

}  // namespace

void RegisterBinaryMathOps(OpRegistry& registry) {
  RegisterBinary<AddFn, true>(registry, "Add", "x + y, element-wise with broadcasting.");
  RegisterBinary<AddFn, true>(registry, "AddV2", "x + y, element-wise with broadcasting.");
  RegisterBinary<SubFn, true>(registry, "Sub", "x - y, element-wise with broadcasting.");
  RegisterBinary<MulFn, true>(registry, "Mul", "x * y, element-wise with broadcasting.");
  // TensorFlow has no CPU kernel for integer RealDiv either; integers divide with FloorDiv.
  RegisterBinary<RealDivFn, false>(registry, "RealDiv", "x / y, element-wise with broadcasting.");
  RegisterBinary<MaximumFn, true>(registry, "Maximum", "max(x, y), element-wise with broadcasting; NaN wins.");
  RegisterBinary<MinimumFn, true>(registry, "Minimum", "min(x, y), element-wise with broadcasting; NaN wins.");
  RegisterBinary<FloorDivFn, true>(registry, "FloorDiv", "floor(x / y), element-wise (Python's //).");
  RegisterBinary<FloorModFn, true>(registry, "FloorMod", "x - floor(x / y) * y, the sign of y (Python's %).");
  RegisterBinary<PowFn, true>(registry, "Pow", "x ** y, element-wise with broadcasting.");
  RegisterBinary<SquaredDifferenceFn, true>(registry, "SquaredDifference", "(x - y)^2, element-wise.");
  RegisterBinary<DivNoNanFn, false>(registry, "DivNoNan", "x / y, and 0 where y is 0.");
  RegisterBinary<GreaterFn, true>(registry, "Greater", "x > y, element-wise.", "z: bool");
  RegisterBinary<GreaterEqualFn, true>(registry, "GreaterEqual", "x >= y, element-wise.", "z: bool");
  RegisterBinary<LessFn, true>(registry, "Less", "x < y, element-wise.", "z: bool");
  RegisterBinary<LessEqualFn, true>(registry, "LessEqual", "x <= y, element-wise.", "z: bool");
  RegisterBinary<NotEqualFn, true>(registry, "NotEqual", "x != y, element-wise.", "z: bool",
                                   "T: {float, double, int32, int64, bool, string}");
  RegisterBinary<EqualFn, true>(registry, "Equal", "x == y, element-wise with broadcasting.", "z: bool",
                                "T: {float, double, int32, int64, bool, string}");
  registry.Register("LogicalAnd")
      .Input("x: bool")
      .Input("y: bool")
      .Output("z: bool")
      .SetShapeFn(BroadcastShape)
      .Kernel("CPU", BinaryKernelFactory<LogicalAndFn, false>())
      .Summary("x AND y, element-wise with broadcasting.")
      .Group("logic");
  registry.Register("LogicalOr")
      .Input("x: bool")
      .Input("y: bool")
      .Output("z: bool")
      .SetShapeFn(BroadcastShape)
      .Kernel("CPU", BinaryKernelFactory<LogicalOrFn, false>())
      .Summary("x OR y, element-wise with broadcasting.")
      .Group("logic");
  // tf.nn.bias_add: the bias along the last (channel) axis, NHWC; the same kernel as Add.
  registry.Register("BiasAdd")
      .Input("value: T")
      .Input("bias: T")
      .Output("output: T")
      .Attr("T: {float, double, int32, int64}")
      .Attr("data_format: string = 'NHWC'")
      .SetShapeFn(UnchangedShape)
      .Kernel("CPU", BinaryKernelFactory<AddFn, true>())
      .Summary("value + bias, the bias added along the last axis.")
      .Group("nn");
}

}  // namespace math_internal
}  // namespace clab
