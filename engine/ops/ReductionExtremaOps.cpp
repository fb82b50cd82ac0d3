// Reductions other than Sum and Mean: Prod, Max, Min (NaN wins, as numpy's max and min), All
// and Any over bool; and ArgMin. Each input element is combined into the output element its
// kept dimensions name, in input order, so results do not depend on threads.
#include "ops/MathOpsInternal.h"
#include "ops/ReductionInternal.h"

#include <cmath>
#include <limits>
#include <tuple>
#include <type_traits>

namespace clab {
namespace math_internal {
namespace {

// For each input element, the index of the output element it reduces into.
std::vector<int64_t> OutputIndexOf(const TensorShape& shape, const std::vector<bool>& reduced,
                                   std::vector<int64_t>* out_dims_kept) {
  const std::vector<int64_t>& dims = shape.dims();
  out_dims_kept->clear();
  for (size_t d = 0; d < dims.size(); ++d)
    if (!reduced[d]) out_dims_kept->push_back(dims[d]);
  std::vector<int64_t> target(static_cast<size_t>(shape.num_elements()));
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t k = 0; k < shape.num_elements(); ++k) {
    int64_t o = 0;
    for (size_t d = 0; d < dims.size(); ++d)
      if (!reduced[d]) o = o * dims[d] + index[d];
    target[static_cast<size_t>(k)] = o;
    for (size_t d = dims.size(); d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  return target;
}

enum class Kind { kProd, kMax, kMin, kAll, kAny };

template <typename T>
T Identity(Kind kind) {
  switch (kind) {
    case Kind::kProd: return T(1);
    case Kind::kMax: return std::numeric_limits<T>::lowest();
    case Kind::kMin: return std::numeric_limits<T>::max();
    case Kind::kAll: return T(1);
    case Kind::kAny: return T(0);
  }
  return T(0);
}

template <typename T>
T Combine(Kind kind, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return kind == Kind::kAll ? (a && b) : (a || b);
  if constexpr (std::is_floating_point_v<T>)
    if ((kind == Kind::kMax || kind == Kind::kMin) && (std::isnan(a) || std::isnan(b)))
      return std::numeric_limits<T>::quiet_NaN();
  switch (kind) {
    case Kind::kProd:
      if constexpr (!std::is_same_v<T, bool>) return WrappingMul(a, b);
      return a;
    case Kind::kMax: return a < b ? b : a;
    case Kind::kMin: return b < a ? b : a;
    case Kind::kAll: return a && b;
    case Kind::kAny: return a || b;
  }
  return a;
}

template <typename T>
void Reduce(OpKernelContext* ctx, Kind kind) {
  const Tensor& in = ctx->input(0);
  std::vector<bool> reduced;
  if (Status s = NormalizeAxes(ctx->input(1), in.shape().rank(), &reduced); !s.ok())
    return ctx->SetStatus(KernelInvalidArgument(ctx, s.message()));
  bool keep_dims = false;
  GetNodeAttr(ctx->node(), "keep_dims", &keep_dims).IgnoreError();
  std::vector<int64_t> kept;
  const std::vector<int64_t> target = OutputIndexOf(in.shape(), reduced, &kept);
  std::vector<int64_t> out_dims;
  for (size_t d = 0; d < reduced.size(); ++d)
    if (!reduced[d]) out_dims.push_back(in.shape().dim(static_cast<int>(d)));
    else if (keep_dims) out_dims.push_back(1);
  Tensor* out = ctx->allocate_output(0, in.dtype(), TensorShape(out_dims));
  if (out == nullptr) return;
  T* o = out->data<T>();
  std::fill(o, o + out->NumElements(), Identity<T>(kind));
  const T* x = in.data<T>();
  for (size_t k = 0; k < target.size(); ++k) o[target[k]] = Combine(kind, o[target[k]], x[k]);
}

KernelFactory ReduceFactory(Kind kind) {
  return LambdaKernel([kind](OpKernelContext* ctx) {
    switch (ctx->input(0).dtype()) {
      case DT_FLOAT: return Reduce<float>(ctx, kind);
      case DT_DOUBLE: return Reduce<double>(ctx, kind);
      case DT_INT32: return Reduce<int32_t>(ctx, kind);
      case DT_INT64: return Reduce<int64_t>(ctx, kind);
      case DT_BOOL: return Reduce<bool>(ctx, kind);
      default: ctx->SetStatus(KernelInvalidArgument(ctx, "no kernel for ", DataTypeName(ctx->input(0).dtype())));
    }
  });
}

// The index of the smallest element along one axis (the first one on ties; NaN counts as
// smallest, as numpy's argmin).
template <typename T>
void ArgMinOf(OpKernelContext* ctx) {
  const Tensor& in = ctx->input(0);
  const int rank = in.shape().rank();
  int64_t axis =
      ctx->input(1).dtype() == DT_INT64 ? ctx->input(1).data<int64_t>()[0] : ctx->input(1).data<int32_t>()[0];
  if (axis < -rank || axis >= rank)
    return ctx->SetStatus(
        KernelInvalidArgument(ctx, "Expected dimension in the range [", -rank, ", ", rank, "), but got ", axis));
  if (axis < 0) axis += rank;
  const std::vector<int64_t>& dims = in.shape().dims();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[static_cast<size_t>(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= dims[static_cast<size_t>(d)];
  const int64_t n = dims[static_cast<size_t>(axis)];
  if (n == 0)
    return ctx->SetStatus(
        KernelInvalidArgument(ctx, "Reduction axis ", axis, " is empty in shape ", in.shape().DebugString()));
  std::vector<int64_t> out_dims = dims;
  out_dims.erase(out_dims.begin() + axis);
  DataType out_type = DT_INT64;
  GetNodeAttr(ctx->node(), "output_type", &out_type).IgnoreError();
  Tensor* out = ctx->allocate_output(0, out_type, TensorShape(out_dims));
  if (out == nullptr) return;
  const T* x = in.data<T>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      for (int64_t k = 1; k < n; ++k) {
        const T v = x[(o * n + k) * inner + i], b = x[(o * n + best) * inner + i];
        bool better = v < b;
        if constexpr (std::is_floating_point_v<T>) better = better || (std::isnan(v) && !std::isnan(b));
        if (better) best = k;
      }
      if (out_type == DT_INT32) {
        out->data<int32_t>()[o * inner + i] = static_cast<int32_t>(best);
      } else {
        out->data<int64_t>()[o * inner + i] = best;
      }
    }
}

void RegisterReduce(OpRegistry& registry, const char* name, Kind kind, const char* types, const char* summary) {
  registry.Register(name)
      .Input("input: T")
      .Input("reduction_indices: Tidx")
      .Output("output: T")
      .Attr("keep_dims: bool = false")
      .Attr(types)
      .Attr("Tidx: {int32, int64} = DT_INT32")
      .SetShapeFn(ReductionShape)
      .Kernel("CPU", ReduceFactory(kind))
      .Summary(summary)
      .Group("math");
}

void RegisterReductionExtremaOps(OpRegistry& registry) {
  constexpr const char* kReal = "T: {float, double, int32, int64}";
  RegisterReduce(registry, "Prod", Kind::kProd, kReal, "Product over the given axes.");
  RegisterReduce(registry, "Max", Kind::kMax, kReal, "Maximum over the given axes; NaN wins.");
  RegisterReduce(registry, "Min", Kind::kMin, kReal, "Minimum over the given axes; NaN wins.");
  for (auto [name, kind, summary] : {std::tuple{"All", Kind::kAll, "Logical AND over the given axes."},
                                     std::tuple{"Any", Kind::kAny, "Logical OR over the given axes."}}) {
    registry.Register(name)
        .Input("input: bool")
        .Input("reduction_indices: Tidx")
        .Output("output: bool")
        .Attr("keep_dims: bool = false")
        .Attr("Tidx: {int32, int64} = DT_INT32")
        .SetShapeFn(ReductionShape)
        .Kernel("CPU", ReduceFactory(kind))
        .Summary(summary)
        .Group("logic");
  }
  registry.Register("ArgMin")
      .Input("input: T")
      .Input("dimension: Tidx")
      .Output("output: output_type")
      .Attr("T: {float, double, int32, int64}")
      .Attr("Tidx: {int32, int64} = DT_INT32")
      .Attr("output_type: {int32, int64} = DT_INT64")
      .SetShapeFn([](ShapeContext& c) {
        const PartialShape& in = c.input_shape(0);
        c.set_output(0, in.known_rank() && in.rank() > 0 ? PartialShape::UnknownOfRank(in.rank() - 1)
                                                         : PartialShape::Unknown());
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel([](OpKernelContext* ctx) {
                CLAB_SWITCH_REAL_TYPES(ctx->input(0).dtype(), T, ArgMinOf<T>(ctx),
                                       ctx->SetStatus(KernelInvalidArgument(ctx, "no kernel for this type")));
              }))
      .Summary("Index of the smallest element along an axis.")
      .Group("math");
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kReductionExtremaOpFamily("reduction extrema", RegisterReductionExtremaOps);

}  // namespace math_internal
}  // namespace clab
