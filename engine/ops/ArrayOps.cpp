// Array ops that make or pass tensors: Const, Placeholder, Identity, NoOp, Fill, ZerosLike,
// OnesLike and Cast. Reshape and Transpose are in ArrayShapeOps.cpp.
#include "clab/core/TensorShape.h"
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;
using array_internal::NodeSuffix;
using array_internal::ReadIndexVector;
using array_internal::ReadInput;

Status SameShapeAsInput(ShapeContext& c) {
  c.set_output(0, c.input_shape(0));
  return OkStatus();
}

// ---- Const ---------------------------------------------------------------------------------

class ConstKernel : public OpKernel {
 public:
  explicit ConstKernel(Tensor value) : value_(std::move(value)) {}
  // Outputs share the parsed buffer; consumers that write (Assign) copy before writing.
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }
  bool IsExpensive() const override { return false; }

 private:
  Tensor value_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeConstKernel(OpKernelConstruction& c) {
  Tensor value;
  CLAB_RETURN_IF_ERROR(c.GetAttr("value", &value));
  DataType dtype = DT_INVALID;
  CLAB_RETURN_IF_ERROR(c.GetAttr("dtype", &dtype));
  if (value.dtype() != dtype)
    return errors::InvalidArgument("Type mismatch between value (", DataTypeName(value.dtype()), ") and dtype (",
                                   DataTypeName(dtype), ") of Const node '", c.name(), "'");
  return std::unique_ptr<OpKernel>(std::make_unique<ConstKernel>(std::move(value)));
}

Status ConstShape(ShapeContext& c) {
  // Read the shape from the proto: parsing a large constant's values here would be waste.
  const auto& attrs = c.node().attr();
  auto it = attrs.find("value");
  if (it == attrs.end() || !it->second.has_tensor())
    return errors::InvalidArgument("Const node '", c.node().name(), "' has no tensor attr 'value'");
  c.set_output(0, PartialShape::FromProto(it->second.tensor().tensor_shape()));
  return OkStatus();
}

// ---- Placeholder ---------------------------------------------------------------------------

Status PlaceholderShape(ShapeContext& c) {
  PartialShape shape;
  CLAB_RETURN_IF_ERROR(c.GetAttr("shape", &shape));
  c.set_output(0, shape);
  return OkStatus();
}

StatusOr<std::unique_ptr<OpKernel>> MakePlaceholderKernel(OpKernelConstruction& c) {
  DataType dtype = DT_INVALID;
  CLAB_RETURN_IF_ERROR(c.GetAttr("dtype", &dtype));
  PartialShape shape;
  CLAB_RETURN_IF_ERROR(c.GetAttr("shape", &shape));
  std::string message =
      clab::StrCat("You must feed a value for placeholder tensor '", c.name(), "' with dtype ", DataTypeName(dtype));
  if (shape.known_rank()) message += clab::StrCat(" and shape ", shape.DebugString());
  // Runs only when nothing was fed: a fed placeholder's output replaces the node.
  return LambdaKernel(
      [message](OpKernelContext* ctx) { ctx->SetStatus(errors::InvalidArgument(message, NodeSuffix(ctx->name()))); },
      /*expensive=*/false)(c);
}

// ---- Identity, NoOp ------------------------------------------------------------------------

void IdentityCompute(OpKernelContext* ctx) {
  Tensor value;
  if (ReadInput(ctx, 0, &value)) ctx->set_output(0, std::move(value));
}

// ---- Fill ----------------------------------------------------------------------------------

Status FillShape(ShapeContext& c) {
  const PartialShape& dims_shape = c.input_shape(0);
  const PartialShape& value_shape = c.input_shape(1);
  if (dims_shape.known_rank() && dims_shape.rank() != 1)
    return c.MakeError(clab::StrCat("Shape must be rank 1 but is rank ", dims_shape.rank()));
  if (value_shape.known_rank() && value_shape.rank() != 0)
    return c.MakeError(clab::StrCat("Shape must be rank 0 but is rank ", value_shape.rank()));
  if (const Tensor* dims = c.input_constant(0)) {
    CLAB_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ReadIndexVector(*dims));
    for (int64_t size : sizes)
      if (size < 0) return c.MakeError(clab::StrCat("Fill dimensions must be >= 0, got ", size));
    c.set_output(0, PartialShape(std::move(sizes)));
  } else if (dims_shape.known_rank() && dims_shape.dim(0) >= 0) {
    c.set_output(0, PartialShape::UnknownOfRank(static_cast<int>(dims_shape.dim(0))));
  } else {
    c.set_output(0, PartialShape::Unknown());
  }
  return OkStatus();
}

template <typename T>
void FillWith(Tensor* out, const T& value) {
  std::fill(out->data<T>(), out->data<T>() + out->NumElements(), value);
}

void FillCompute(OpKernelContext* ctx) {
  Tensor dims, value;
  if (!ReadInput(ctx, 0, &dims) || !ReadInput(ctx, 1, &value)) return;
  if (dims.shape().rank() != 1)
    return FailInvalidArgument(ctx, "dims must be a vector, got shape ", dims.shape().DebugString());
  if (value.shape().rank() != 0)
    return FailInvalidArgument(ctx, "value must be a scalar, got shape ", value.shape().DebugString());
  auto sizes = ReadIndexVector(dims);
  if (!sizes.ok()) return FailInvalidArgument(ctx, "dims: ", sizes.status().message());
  auto shape = TensorShape::FromDims(std::move(sizes).value());
  if (!shape.ok()) return FailInvalidArgument(ctx, "Fill dimensions are invalid: ", shape.status().message());
  Tensor* out = ctx->allocate_output(0, value.dtype(), *shape);
  if (value.dtype() == DT_STRING) return FillWith(out, value.scalar<std::string>());
  CLAB_SWITCH_POD_TYPES(value.dtype(), T, FillWith(out, value.scalar<T>()),
                        FailInvalidArgument(ctx, "Fill does not support ", DataTypeName(value.dtype())));
}

// ---- ZerosLike, OnesLike -------------------------------------------------------------------

void ZerosLikeCompute(OpKernelContext* ctx) {
  Tensor x;
  if (!ReadInput(ctx, 0, &x)) return;
  Tensor* out = ctx->allocate_output(0, x.dtype(), x.shape());
  // Host tensors start zeroed (empty strings); only other memory needs an explicit fill.
  if (out->OnHost() || x.dtype() == DT_STRING) return;
  std::fill(static_cast<char*>(out->raw_data()), static_cast<char*>(out->raw_data()) + out->TotalBytes(), 0);
}

void OnesLikeCompute(OpKernelContext* ctx) {
  Tensor x;
  if (!ReadInput(ctx, 0, &x)) return;
  Tensor* out = ctx->allocate_output(0, x.dtype(), x.shape());
  CLAB_SWITCH_POD_TYPES(x.dtype(), T, FillWith(out, static_cast<T>(1)),
                        FailInvalidArgument(ctx, "OnesLike does not support ", DataTypeName(x.dtype())));
}

// ---- Cast ----------------------------------------------------------------------------------

// A floating value cast to an integer type it does not fit (1e30 to uint8, NaN to int32) has
// no value in C++; here it saturates to the type's nearest end, and NaN gives 0.
template <typename Dst, typename Src>
Dst CastValue(Src value) {
  if constexpr (std::is_integral_v<Dst> && !std::is_integral_v<Src>) {
    const double v = static_cast<double>(value);
    if (std::isnan(v)) return Dst(0);
    if (v <= static_cast<double>(std::numeric_limits<Dst>::lowest())) return std::numeric_limits<Dst>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<Dst>::max())) return std::numeric_limits<Dst>::max();
    return static_cast<Dst>(v);
  } else {
    return static_cast<Dst>(value);
  }
}

template <typename Src, typename Dst>
void CastElements(const Tensor& in, Tensor* out) {
  const Src* src = in.data<Src>();
  Dst* dst = out->data<Dst>();
  const int64_t n = in.NumElements();
  for (int64_t k = 0; k < n; ++k) {
    if constexpr (std::is_same_v<Dst, bool>) dst[k] = src[k] != Src(0);
    else dst[k] = CastValue<Dst>(src[k]);
  }
}

StatusOr<std::unique_ptr<OpKernel>> MakeCastKernel(OpKernelConstruction& c) {
  DataType src = DT_INVALID, dst = DT_INVALID;
  CLAB_RETURN_IF_ERROR(c.GetAttr("SrcT", &src));
  CLAB_RETURN_IF_ERROR(c.GetAttr("DstT", &dst));
  return LambdaKernel([src, dst](OpKernelContext* ctx) {
    Tensor x;
    if (!ReadInput(ctx, 0, &x)) return;
    if (x.dtype() != src)
      return FailInvalidArgument(ctx, "Cast expects ", DataTypeName(src), " input, got ", DataTypeName(x.dtype()));
    if (src == dst) return ctx->set_output(0, x);
    Tensor* out = ctx->allocate_output(0, dst, x.shape());
    CLAB_SWITCH_POD_TYPES(
        src, Src,
        CLAB_SWITCH_POD_TYPES(dst, Dst, (CastElements<Src, Dst>(x, out)),
                              FailInvalidArgument(ctx, "Cast to ", DataTypeName(dst), " is not supported")),
        FailInvalidArgument(ctx, "Cast from ", DataTypeName(src), " is not supported"));
  })(c);
}

}  // namespace

void RegisterArrayOps(OpRegistry& registry) {
  registry.Register("Const")
      .Output("output: dtype")
      .Attr("value: tensor")
      .Attr("dtype: type")
      .SetShapeFn(ConstShape)
      .Kernel("CPU", MakeConstKernel)
      .Summary("A constant tensor held in the graph")
      .Group("array");

  registry.Register("Placeholder")
      .Output("output: dtype")
      .Attr("dtype: type")
      .Attr("shape: shape = { unknown_rank: true }")
      .SetShapeFn(PlaceholderShape)
      .Kernel("CPU", MakePlaceholderKernel)
      .Summary("A value the caller must feed at each run")
      .Group("array");

  registry.Register("Identity")
      .Input("input: T")
      .Output("output: T")
      .Attr("T: type")
      .SetShapeFn(SameShapeAsInput)
      .Kernel("CPU", LambdaKernel(IdentityCompute, /*expensive=*/false))
      .Summary("Passes its input on; reads a variable's value")
      .Group("array");

  registry.Register("NoOp")
      .SetShapeFn([](ShapeContext&) { return OkStatus(); })
      .Kernel("CPU", LambdaKernel([](OpKernelContext*) {}, /*expensive=*/false))
      .Summary("Does nothing; groups control dependencies")
      .Group("control");

  registry.Register("Fill")
      .Input("dims: index_type")
      .Input("value: T")
      .Output("output: T")
      .Attr("T: type")
      .Attr("index_type: {int32, int64} = DT_INT32")
      .SetShapeFn(FillShape)
      .Kernel("CPU", LambdaKernel(FillCompute))
      .Summary("A tensor of the given shape with every element set to a scalar")
      .Group("array");

  registry.Register("ZerosLike")
      .Input("x: T")
      .Output("y: T")
      .Attr("T: {float, double, int32, int64, bool, uint8, string}")
      .SetShapeFn(SameShapeAsInput)
      .Kernel("CPU", LambdaKernel(ZerosLikeCompute))
      .Summary("Zeros with the shape and type of the input")
      .Group("array");

  registry.Register("OnesLike")
      .Input("x: T")
      .Output("y: T")
      .Attr("T: {float, double, int32, int64, bool, uint8}")
      .SetShapeFn(SameShapeAsInput)
      .Kernel("CPU", LambdaKernel(OnesLikeCompute))
      .Summary("Ones with the shape and type of the input")
      .Group("array");

  registry.Register("Cast")
      .Input("x: SrcT")
      .Output("y: DstT")
      .Attr("SrcT: {float, double, int32, int64, bool, uint8}")
      .Attr("DstT: {float, double, int32, int64, bool, uint8}")
      .Attr("Truncate: bool = false")
      .SetShapeFn(SameShapeAsInput)
      .Kernel("CPU", MakeCastKernel)
      .Summary("Converts each element to another type (floats to ints truncate toward zero)")
      .Group("math");

  array_internal::RegisterArrayShapeOps(registry);
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kArrayOpFamily("array", RegisterArrayOps);

}  // namespace clab
