// Ops about dimensions, most of which TensorFlow's gradient code puts in every training
// graph: ExpandDims, Squeeze, ShapeN, Size, Rank, BroadcastGradientArgs (which axes each
// side of a broadcast must sum its gradient over), Range, InvertPermutation; and the
// pass-through ops StopGradient, PreventGradient and PlaceholderWithDefault.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/ElementCopy.h"

#include <absl/strings/str_join.h>

#include <cmath>

namespace clab::array_internal {
namespace {

void PassThrough(OpKernelContext* ctx) {
  Tensor in;
  if (ReadInput(ctx, 0, &in)) ctx->set_output(0, in);
}

Status SameShape(ShapeContext& c) {
  c.set_output(0, c.input_shape(0));
  return OkStatus();
}

// ---- ExpandDims / Squeeze ------------------------------------------------------------------

StatusOr<std::vector<int64_t>> ExpandedDims(std::vector<int64_t> dims, int64_t axis) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (axis < -rank - 1 || axis > rank)
    return errors::InvalidArgument("Tried to expand dim index ", axis, " for tensor with ", rank, " dimensions.");
  dims.insert(dims.begin() + (axis < 0 ? axis + rank + 1 : axis), 1);
  return dims;
}

Status ExpandDimsShape(ShapeContext& c) {
  const Tensor* axis = c.input_constant(1);
  if (!c.input_shape(0).known_rank() || axis == nullptr) {
    c.set_output(0, c.input_shape(0).known_rank() ? PartialShape::UnknownOfRank(c.input_shape(0).rank() + 1)
                                                  : PartialShape::Unknown());
    return OkStatus();
  }
  const StatusOr<int64_t> at = ReadIndexScalar(*axis, "'dim'");
  if (!at.ok()) return c.MakeError(std::string(at.status().message()));
  auto dims = ExpandedDims(c.input_shape(0).dims(), *at);
  if (!dims.ok()) return c.MakeError(std::string(dims.status().message()));
  c.set_output(0, PartialShape(std::move(dims).value()));
  return OkStatus();
}

void ExpandDimsCompute(OpKernelContext* ctx) {
  Tensor in, axis;
  if (!ReadInput(ctx, 0, &in) || !ReadInput(ctx, 1, &axis)) return;
  if (axis.NumElements() != 1) return FailInvalidArgument(ctx, "'dim' must be a tensor with a single value");
  const StatusOr<int64_t> at = ReadIndexScalar(axis, "'dim'");
  if (!at.ok()) return FailInvalidArgument(ctx, at.status().message());
  auto dims = ExpandedDims(in.shape().dims(), *at);
  if (!dims.ok()) return FailInvalidArgument(ctx, dims.status().message());
  ctx->set_output(0, in.Reshaped(TensorShape(std::move(dims).value())).value());
}

// The dims left by squeezing `squeeze_dims` (all size-1 dims when empty); -1 dims are kept.
StatusOr<std::vector<int64_t>> SqueezedDims(const std::vector<int64_t>& dims, const std::vector<int64_t>& axes) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<bool> drop(dims.size(), false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank)
      return errors::InvalidArgument("Tried to squeeze dim index ", axis, " for tensor with ", rank, " dimensions.");
    const size_t at = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    if (dims[at] > 1 || dims[at] == 0)
      return errors::InvalidArgument("Can not squeeze dim[", at, "], expected a dimension of 1, got ", dims[at]);
    drop[at] = true;
  }
  std::vector<int64_t> kept;
  for (size_t i = 0; i < dims.size(); ++i)
    if (!(axes.empty() ? dims[i] == 1 : drop[i])) kept.push_back(dims[i]);
  return kept;
}

Status SqueezeShape(ShapeContext& c) {
  std::vector<int64_t> axes;
  CLAB_RETURN_IF_ERROR(c.GetAttr("squeeze_dims", &axes));
  const PartialShape& in = c.input_shape(0);
  if (!in.known_rank() || (axes.empty() && !in.IsFullyDefined())) {
    c.set_output(0, PartialShape::Unknown());
    return OkStatus();
  }
  auto dims = SqueezedDims(in.dims(), axes);
  if (!dims.ok()) return c.MakeError(std::string(dims.status().message()));
  c.set_output(0, PartialShape(std::move(dims).value()));
  return OkStatus();
}

void SqueezeCompute(OpKernelContext* ctx) {
  Tensor in;
  if (!ReadInput(ctx, 0, &in)) return;
  std::vector<int64_t> axes;
  GetNodeAttr(ctx->node(), "squeeze_dims", &axes).IgnoreError();
  auto dims = SqueezedDims(in.shape().dims(), axes);
  if (!dims.ok()) return FailInvalidArgument(ctx, dims.status().message());
  ctx->set_output(0, in.Reshaped(TensorShape(std::move(dims).value())).value());
}

// ---- Shape queries -------------------------------------------------------------------------

DataType OutType(OpKernelContext* ctx) {
  DataType out_type = DT_INT32;
  GetNodeAttr(ctx->node(), "out_type", &out_type).IgnoreError();
  return out_type;
}

void ShapeNCompute(OpKernelContext* ctx) {
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    Tensor in;
    if (!ReadInput(ctx, i, &in)) return;
    const std::vector<int64_t>& dims = in.shape().dims();
    ctx->set_output(i, IndexTensor(OutType(ctx), dims, TensorShape({static_cast<int64_t>(dims.size())})));
  }
}

void SizeCompute(OpKernelContext* ctx) {
  Tensor in;
  if (!ReadInput(ctx, 0, &in)) return;
  ctx->set_output(0, IndexTensor(OutType(ctx), {in.NumElements()}, TensorShape{}));
}

void RankCompute(OpKernelContext* ctx) {
  Tensor in;
  if (!ReadInput(ctx, 0, &in)) return;
  ctx->set_output(0, Tensor::Scalar<int32_t>(in.shape().rank()));
}

// For z = x op y broadcast: the axes of z that x and y each must sum their gradient over.
void BroadcastGradientArgsCompute(OpKernelContext* ctx) {
  const std::vector<int64_t> x = ReadIndexVector(ctx->input(0)).value();
  const std::vector<int64_t> y = ReadIndexVector(ctx->input(1)).value();
  const size_t rank = std::max(x.size(), y.size());
  std::vector<int64_t> rx, ry;
  for (size_t i = 0; i < rank; ++i) {
    const int64_t xd = i < rank - x.size() ? 1 : x[i - (rank - x.size())];
    const int64_t yd = i < rank - y.size() ? 1 : y[i - (rank - y.size())];
    if (xd != yd && xd != 1 && yd != 1)
      return FailInvalidArgument(ctx, "Incompatible shapes: [", absl::StrJoin(x, ","), "] vs. [", absl::StrJoin(y, ","),
                                 "]");
    if (xd == 1 && yd == 1) {
      rx.push_back(static_cast<int64_t>(i));
      ry.push_back(static_cast<int64_t>(i));
    } else if (xd == 1) {
      rx.push_back(static_cast<int64_t>(i));
    } else if (yd == 1) {
      ry.push_back(static_cast<int64_t>(i));
    }
  }
  const DataType dtype = ctx->input(0).dtype();
  ctx->set_output(0, IndexTensor(dtype, rx, TensorShape({static_cast<int64_t>(rx.size())})));
  ctx->set_output(1, IndexTensor(dtype, ry, TensorShape({static_cast<int64_t>(ry.size())})));
}

// ---- Range / InvertPermutation -------------------------------------------------------------

template <typename T>
void RangeOf(OpKernelContext* ctx) {
  static constexpr const char* kNames[] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; ++i)
    if (ctx->input(i).NumElements() != 1)
      return FailInvalidArgument(ctx, "Range's ", kNames[i], " must be a scalar, got shape ",
                                 ctx->input(i).shape().DebugString());
  auto value = [&](int i) -> double {
    double v = 0;
    CLAB_SWITCH_REAL_TYPES(ctx->input(i).dtype(), V, (v = static_cast<double>(ctx->input(i).data<V>()[0])), v = 0);
    return v;
  };
  const double start = value(0), limit = value(1), delta = value(2);
  if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta))
    return FailInvalidArgument(ctx, "Range needs finite start, limit and delta, got ", start, ", ", limit, ", ", delta);
  if (delta == 0) return FailInvalidArgument(ctx, "Requires delta != 0: ", delta);
  if ((delta > 0 && start > limit) || (delta < 0 && start < limit))
    return FailInvalidArgument(ctx, "Requires start <= limit when delta > 0: ", start, "/", limit);
  const double count = std::is_integral_v<T>
                           ? std::floor((std::abs(limit - start) + std::abs(delta) - 1) / std::abs(delta))
                           : std::ceil(std::abs((limit - start) / delta));
  if (!(count < 0x1p62))
    return FailInvalidArgument(ctx, "Range from ", start, " to ", limit, " by ", delta, " has too many elements");
  const int64_t n = static_cast<int64_t>(count);
  Tensor* out = ctx->allocate_output(0, DataTypeOf<T>::value, TensorShape({n}));
  if (out == nullptr) return;
  for (int64_t i = 0; i < n; ++i) out->data<T>()[i] = static_cast<T>(start + static_cast<double>(i) * delta);
}

void RangeCompute(OpKernelContext* ctx) {
  CLAB_SWITCH_REAL_TYPES(ctx->input(0).dtype(), T, RangeOf<T>(ctx),
                         FailInvalidArgument(ctx, "Range has no kernel for ", DataTypeName(ctx->input(0).dtype())));
}

void InvertPermutationCompute(OpKernelContext* ctx) {
  const std::vector<int64_t> perm = ReadIndexVector(ctx->input(0)).value();
  std::vector<int64_t> inverse(perm.size(), -1);
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= static_cast<int64_t>(perm.size()) || inverse[static_cast<size_t>(perm[i])] >= 0)
      return FailInvalidArgument(ctx, perm[i], " is not a permutation of 0..", perm.size() - 1);
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  }
  ctx->set_output(0, IndexTensor(ctx->input(0).dtype(), inverse, ctx->input(0).shape()));
}

Status VectorOfInputRank(ShapeContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) {
    const PartialShape& in = c.input_shape(i);
    c.set_output(i, PartialShape({in.known_rank() ? static_cast<int64_t>(in.rank()) : -1}));
  }
  return OkStatus();
}

Status ScalarShape(ShapeContext& c) {
  c.set_output(0, PartialShape::Scalar());
  return OkStatus();
}

void RegisterArrayDimOps(OpRegistry& registry) {
  registry.Register("ExpandDims")
      .Input("input: T")
      .Input("dim: Tdim")
      .Output("output: T")
      .Attr("T: type")
      .Attr("Tdim: {int32, int64} = DT_INT32")
      .SetShapeFn(ExpandDimsShape)
      .Kernel("CPU", LambdaKernel(ExpandDimsCompute, false))
      .Summary("Inserts a dimension of size 1 at index dim.")
      .Group("array");
  registry.Register("Squeeze")
      .Input("input: T")
      .Output("output: T")
      .Attr("T: type")
      .Attr("squeeze_dims: list(int) = []")
      .SetShapeFn(SqueezeShape)
      .Kernel("CPU", LambdaKernel(SqueezeCompute, false))
      .Summary("Removes dimensions of size 1 (those listed, or all).")
      .Group("array");
  registry.Register("ShapeN")
      .Input("input: N * T")
      .Output("output: N * out_type")
      .Attr("N: int >= 1")
      .Attr("T: type")
      .Attr("out_type: {int32, int64} = DT_INT32")
      .SetShapeFn(VectorOfInputRank)
      .Kernel("CPU", LambdaKernel(ShapeNCompute, false))
      .Summary("The shapes of N tensors.")
      .Group("array");
  registry.Register("Size")
      .Input("input: T")
      .Output("output: out_type")
      .Attr("T: type")
      .Attr("out_type: {int32, int64} = DT_INT32")
      .SetShapeFn(ScalarShape)
      .Kernel("CPU", LambdaKernel(SizeCompute, false))
      .Summary("The number of elements of a tensor.")
      .Group("array");
  registry.Register("Rank")
      .Input("input: T")
      .Output("output: int32")
      .Attr("T: type")
      .SetShapeFn(ScalarShape)
      .Kernel("CPU", LambdaKernel(RankCompute, false))
      .Summary("The number of dimensions of a tensor.")
      .Group("array");
  registry.Register("BroadcastGradientArgs")
      .Input("s0: T")
      .Input("s1: T")
      .Output("r0: T")
      .Output("r1: T")
      .Attr("T: {int32, int64} = DT_INT32")
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, PartialShape({-1}));
        c.set_output(1, PartialShape({-1}));
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(BroadcastGradientArgsCompute, false))
      .Summary("The axes over which each side of a broadcast sums its gradient.")
      .Group("array");
  registry.Register("Range")
      .Input("start: Tidx")
      .Input("limit: Tidx")
      .Input("delta: Tidx")
      .Output("output: Tidx")
      .Attr("Tidx: {float, double, int32, int64} = DT_INT32")
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, PartialShape({-1}));
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(RangeCompute, false))
      .Summary("start, start + delta, ... up to but not including limit.")
      .Group("array");
  registry.Register("InvertPermutation")
      .Input("x: T")
      .Output("y: T")
      .Attr("T: {int32, int64} = DT_INT32")
      .SetShapeFn(SameShape)
      .Kernel("CPU", LambdaKernel(InvertPermutationCompute, false))
      .Summary("y[x[i]] = i.")
      .Group("array");
  for (const char* name : {"StopGradient", "PreventGradient"}) {
    OpDefBuilder op = registry.Register(name);
    op.Input("input: T").Output("output: T").Attr("T: type");
    if (std::string_view(name) == "PreventGradient") op.Attr("message: string = ''");
    op.SetShapeFn(SameShape)
        .Kernel("CPU", LambdaKernel(PassThrough, false))
        .Summary("Passes its input on; gradients do not flow back through it.")
        .Group("array");
  }
  registry.Register("PlaceholderWithDefault")
      .Input("input: dtype")
      .Output("output: dtype")
      .Attr("dtype: type")
      .Attr("shape: shape")
      .SetShapeFn([](ShapeContext& c) {
        PartialShape shape;
        CLAB_RETURN_IF_ERROR(c.GetAttr("shape", &shape));
        c.set_output(0, shape);
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(PassThrough, false))
      .Summary("Its input, unless a value is fed.")
      .Group("array");
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kArrayDimOpFamily("array dims", RegisterArrayDimOps);

}  // namespace clab::array_internal
