// Small ops real models need around their layers: L2Loss (sum(t^2) / 2, for weight decay)
// and ArgMax (the predicted class). Equal, to count correct predictions, is with the
// binary math ops.
#include "ops/MathOpsInternal.h"

namespace clab {
namespace {

template <typename T>
void L2LossCompute(OpKernelContext* ctx) {
  const Tensor& t = ctx->input(0);
  Tensor* out = ctx->allocate_output(0, t.dtype(), TensorShape({}));
  if (out == nullptr) return;
  double sum = 0;
  for (int64_t i = 0, i_end = t.NumElements(); i < i_end; ++i)
    sum += static_cast<double>(t.data<T>()[i]) * t.data<T>()[i];
  *out->data<T>() = static_cast<T>(sum / 2);
}

void L2LossKernel(OpKernelContext* ctx) {
  if (ctx->input(0).dtype() == DT_DOUBLE) return L2LossCompute<double>(ctx);
  if (ctx->input(0).dtype() == DT_FLOAT) return L2LossCompute<float>(ctx);
  ctx->SetStatus(
      math_internal::KernelInvalidArgument(ctx, "L2Loss has no kernel for ", DataTypeName(ctx->input(0).dtype())));
}

template <typename T>
void ArgMaxCompute(OpKernelContext* ctx, int64_t axis) {
  const Tensor& input = ctx->input(0);
  const TensorShape& shape = input.shape();
  std::vector<int64_t> out_dims;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < shape.rank(); ++d) {
    if (d < axis) outer *= shape.dim(d);
    if (d > axis) inner *= shape.dim(d);
    if (d != axis) out_dims.push_back(shape.dim(d));
  }
  const int64_t n = shape.dim(static_cast<int>(axis));
  if (n == 0) {
    ctx->SetStatus(math_internal::KernelInvalidArgument(ctx, "ArgMax of an empty axis"));
    return;
  }
  Tensor* out = ctx->allocate_output(0, DT_INT64, TensorShape(out_dims));
  if (out == nullptr) return;
  const T* in = input.data<T>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      for (int64_t k = 1; k < n; ++k)
        if (in[(o * n + k) * inner + i] > in[(o * n + best) * inner + i]) best = k;
      out->data<int64_t>()[o * inner + i] = best;
    }
  }
}

void ArgMaxKernel(OpKernelContext* ctx) {
  const Tensor& dimension = ctx->input(1);
  const int rank = ctx->input(0).shape().rank();
  if (dimension.NumElements() != 1 || rank == 0) {
    ctx->SetStatus(
        math_internal::KernelInvalidArgument(ctx, "ArgMax wants a scalar dimension and an input of rank >= 1"));
    return;
  }
  int64_t axis = dimension.dtype() == DT_INT64 ? dimension.data<int64_t>()[0] : dimension.data<int32_t>()[0];
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) {
    ctx->SetStatus(math_internal::KernelInvalidArgument(ctx, "ArgMax dimension out of range for rank ", rank));
    return;
  }
  switch (ctx->input(0).dtype()) {
    case DT_FLOAT: return ArgMaxCompute<float>(ctx, axis);
    case DT_DOUBLE: return ArgMaxCompute<double>(ctx, axis);
    case DT_INT32: return ArgMaxCompute<int32_t>(ctx, axis);
    case DT_INT64: return ArgMaxCompute<int64_t>(ctx, axis);
    default:
      ctx->SetStatus(
          math_internal::KernelInvalidArgument(ctx, "ArgMax has no kernel for ", DataTypeName(ctx->input(0).dtype())));
  }
}

Status ScalarShape(ShapeContext& ctx) {
  ctx.set_output(0, PartialShape::Scalar());
  return OkStatus();
}

Status ArgMaxShape(ShapeContext& ctx) {
  const PartialShape& input = ctx.input_shape(0);
  const Tensor* dimension = ctx.input_constant(1);
  if (!input.known_rank() || dimension == nullptr) {
    ctx.set_output(0, PartialShape());
    return OkStatus();
  }
  int64_t axis = dimension->dtype() == DT_INT64 ? dimension->data<int64_t>()[0] : dimension->data<int32_t>()[0];
  if (axis < 0) axis += input.rank();
  std::vector<int64_t> dims;
  for (int d = 0; d < input.rank(); ++d)
    if (d != axis) dims.push_back(input.dim(d));
  ctx.set_output(0, PartialShape(dims));
  return OkStatus();
}

}  // namespace

void RegisterModelOps(OpRegistry& registry) {
  registry.Register("L2Loss")
      .Input("t: T")
      .Output("output: T")
      .Attr("T: {float, double}")
      .SetShapeFn(ScalarShape)
      .Kernel("CPU", LambdaKernel(L2LossKernel))
      .Summary("sum(t ** 2) / 2: half the squared L2 norm, for weight decay.")
      .Group("nn");
  registry.Register("ArgMax")
      .Input("input: T")
      .Input("dimension: Tidx")
      .Output("output: output_type")
      .Attr("T: {float, double, int32, int64}")
      .Attr("Tidx: {int32, int64} = DT_INT32")
      .Attr("output_type: {int64} = DT_INT64")
      .SetShapeFn(ArgMaxShape)
      .Kernel("CPU", LambdaKernel(ArgMaxKernel))
      .Summary("The index of the largest value along an axis (the first on ties).")
      .Group("math");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kModelOpFamily("model", RegisterModelOps);

}  // namespace clab
