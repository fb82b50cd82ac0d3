// The ops TensorFlow's gradient code writes for element-wise functions, given the forward
// output y and the incoming gradient dy: SigmoidGrad dy*y*(1-y), TanhGrad dy*(1-y^2),
// SqrtGrad dy*0.5/y, RsqrtGrad -0.5*dy*y^3, ReciprocalGrad -dy*y^2; AddN (the sum of N
// tensors of one shape, how gradients from several consumers meet); and BiasAddGrad (the
// bias gradient: dy summed over every axis but the channel axis).
#include "ops/MathOpsInternal.h"

namespace clab {
namespace math_internal {
namespace {

template <typename T>
using GradFn = T (*)(T y, T dy);

template <typename T>
T SigmoidGradOf(T y, T dy) {
  return dy * y * (T(1) - y);
}
template <typename T>
T TanhGradOf(T y, T dy) {
  return dy * (T(1) - y * y);
}
template <typename T>
T SqrtGradOf(T y, T dy) {
  return dy * T(0.5) / y;
}
template <typename T>
T RsqrtGradOf(T y, T dy) {
  return T(-0.5) * dy * y * y * y;
}
template <typename T>
T ReciprocalGradOf(T y, T dy) {
  return -dy * y * y;
}

template <typename T>
void GradCompute(OpKernelContext* ctx, GradFn<T> fn) {
  const Tensor& y = ctx->input(0);
  const Tensor& dy = ctx->input(1);
  if (!(y.shape() == dy.shape()))
    return ctx->SetStatus(KernelInvalidArgument(ctx, "y and dy must have one shape, not ", y.shape().DebugString(),
                                                " and ", dy.shape().DebugString()));
  Tensor* out = ctx->allocate_output(0, y.dtype(), y.shape());
  if (out == nullptr) return;
  for (int64_t i = 0, i_end = y.NumElements(); i < i_end; ++i) out->data<T>()[i] = fn(y.data<T>()[i], dy.data<T>()[i]);
}

void RegisterGrad(OpRegistry& registry, const char* name, GradFn<float> f, GradFn<double> d, const char* summary) {
  registry.Register(name)
      .Input("y: T")
      .Input("dy: T")
      .Output("z: T")
      .Attr("T: {float, double}")
      .SetShapeFn(UnchangedShape)
      .Kernel("CPU", LambdaKernel([f, d](OpKernelContext* ctx) {
                if (ctx->input(0).dtype() == DT_FLOAT) return GradCompute<float>(ctx, f);
                GradCompute<double>(ctx, d);
              }))
      .Summary(summary)
      .Group("math");
}

template <typename T>
void AddNOf(OpKernelContext* ctx) {
  const Tensor& first = ctx->input(0);
  Tensor* out = ctx->allocate_output(0, first.dtype(), first.shape());
  if (out == nullptr) return;
  T* o = out->data<T>();
  std::copy(first.data<T>(), first.data<T>() + first.NumElements(), o);
  for (int i = 1; i < ctx->num_inputs(); ++i) {
    const Tensor& in = ctx->input(i);
    if (!(in.shape() == first.shape()))
      return ctx->SetStatus(KernelInvalidArgument(ctx, "Inputs to operation AddN must have the same size and shape. ",
                                                  "Input 0: ", first.shape().DebugString(), " != input ", i, ": ",
                                                  in.shape().DebugString()));
    for (int64_t k = 0, k_end = in.NumElements(); k < k_end; ++k) o[k] = WrappingAdd(o[k], in.data<T>()[k]);
  }
}

template <typename T>
void BiasAddGradOf(OpKernelContext* ctx) {
  const Tensor& dy = ctx->input(0);
  std::string format = "NHWC";
  GetNodeAttr(ctx->node(), "data_format", &format).IgnoreError();
  const int rank = dy.shape().rank();
  if (rank < 2)
    return ctx->SetStatus(KernelInvalidArgument(ctx, "Input tensor must be at least 2D: ", dy.shape().DebugString()));
  const int channel_axis = format == "NCHW" ? 1 : rank - 1;
  const int64_t channels = dy.shape().dim(channel_axis);
  int64_t inner = 1;
  for (int d = channel_axis + 1; d < rank; ++d) inner *= dy.shape().dim(d);
  Tensor* out = ctx->allocate_output(0, dy.dtype(), TensorShape({channels}));
  if (out == nullptr) return;
  std::vector<double> sums(static_cast<size_t>(channels), 0.0);
  for (int64_t k = 0, k_end = dy.NumElements(); k < k_end; ++k)
    sums[static_cast<size_t>((k / inner) % channels)] += static_cast<double>(dy.data<T>()[k]);
  for (int64_t c = 0; c < channels; ++c) out->data<T>()[c] = static_cast<T>(sums[static_cast<size_t>(c)]);
}

void RegisterMathGradOps(OpRegistry& registry) {
  RegisterGrad(registry, "SigmoidGrad", SigmoidGradOf<float>, SigmoidGradOf<double>, "dy * y * (1 - y).");
  RegisterGrad(registry, "TanhGrad", TanhGradOf<float>, TanhGradOf<double>, "dy * (1 - y^2).");
  RegisterGrad(registry, "SqrtGrad", SqrtGradOf<float>, SqrtGradOf<double>, "dy * 0.5 / y.");
  RegisterGrad(registry, "RsqrtGrad", RsqrtGradOf<float>, RsqrtGradOf<double>, "-0.5 * dy * y^3.");
  RegisterGrad(registry, "ReciprocalGrad", ReciprocalGradOf<float>, ReciprocalGradOf<double>, "-dy * y^2.");
  registry.Register("AddN")
      .Input("inputs: N * T")
      .Output("sum: T")
      .Attr("N: int >= 1")
      .Attr("T: {float, double, int32, int64}")
      .SetShapeFn([](ShapeContext& c) {
        PartialShape merged = c.input_shape(0);
        for (int i = 1; i < c.num_inputs(); ++i) {
          auto m = merged.MergeWith(c.input_shape(i));
          if (!m.ok()) return c.MakeError(std::string(m.status().message()));
          merged = *m;
        }
        c.set_output(0, merged);
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel([](OpKernelContext* ctx) {
                CLAB_SWITCH_REAL_TYPES(ctx->input(0).dtype(), T, AddNOf<T>(ctx),
                                       ctx->SetStatus(KernelInvalidArgument(ctx, "AddN: unsupported type")));
              }))
      .Summary("The element-wise sum of N tensors of one shape.")
      .Group("math");
  registry.Register("BiasAddGrad")
      .Input("out_backprop: T")
      .Output("output: T")
      .Attr("T: {float, double}")
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
      .SetShapeFn([](ShapeContext& c) {
        const PartialShape& in = c.input_shape(0);
        std::string format = "NHWC";
        CLAB_RETURN_IF_ERROR(c.GetAttr("data_format", &format));
        const int axis = format == "NCHW" ? 1 : in.rank() - 1;
        c.set_output(0, in.known_rank() && in.rank() >= 2 ? PartialShape({in.dim(axis)}) : PartialShape({-1}));
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel([](OpKernelContext* ctx) {
                if (ctx->input(0).dtype() == DT_FLOAT) return BiasAddGradOf<float>(ctx);
                BiasAddGradOf<double>(ctx);
              }))
      .Summary("The gradient of BiasAdd's bias: dy summed over all axes but the channels.")
      .Group("nn");
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kMathGradOpFamily("math gradients", RegisterMathGradOps);

}  // namespace math_internal
}  // namespace clab
