// Gradient kernels of the nn family: ReluGrad(gradients, features) passes the gradient where
// the forward input was positive, as TensorFlow's op of the same name.
#include "ops/MathOpsInternal.h"

#include "ops/RegisterOps.h"

namespace clab {
namespace {

template <typename T>
void ReluGradCompute(OpKernelContext* ctx) {
  const Tensor& gradients = ctx->input(0);
  const Tensor& features = ctx->input(1);
  if (!(gradients.shape() == features.shape())) {
    ctx->SetStatus(math_internal::KernelInvalidArgument(ctx, "ReluGrad: gradients ", gradients.shape().DebugString(),
                                                        " and features ", features.shape().DebugString(),
                                                        " must have the same shape"));
    return;
  }
  Tensor* output = ctx->allocate_output(0, gradients.dtype(), gradients.shape());
  if (output == nullptr) return;
  const T* g = gradients.data<T>();
  const T* x = features.data<T>();
  T* out = output->data<T>();
  for (int64_t i = 0; i < gradients.NumElements(); ++i) out[i] = x[i] > T(0) ? g[i] : T(0);
}

void ReluGradKernel(OpKernelContext* ctx) {
  switch (ctx->input(0).dtype()) {
    case DT_FLOAT: return ReluGradCompute<float>(ctx);
    case DT_DOUBLE: return ReluGradCompute<double>(ctx);
    default:
      ctx->SetStatus(math_internal::KernelInvalidArgument(ctx, "ReluGrad has no kernel for ",
                                                          DataTypeName(ctx->input(0).dtype())));
  }
}

}  // namespace

void RegisterNnGradOps(OpRegistry& registry) {
  registry.Register("ReluGrad")
      .Input("gradients: T")
      .Input("features: T")
      .Output("backprops: T")
      .Attr("T: {float, double}")
      .SetShapeFn(math_internal::UnchangedShape)
      .Kernel("CPU", LambdaKernel(ReluGradKernel, /*expensive=*/false))
      .Summary("The gradient of Relu: gradients where features > 0, else 0.")
      .Group("nn");
}

}  // namespace clab
