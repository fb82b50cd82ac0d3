// Gradient kernels. ReluGrad(gradients, features) passes the gradient where the forward input
// was positive, as TensorFlow's op of the same name; LeakyReluGrad passes it there and
// scales it by alpha elsewhere. _ReductionGrad(grad, input,
// reduction_indices) spreads the gradient of Sum (or, with mean, Mean) back over the reduced
// axes, with the shapes of this run: batch sizes need not be known when the graph is built.
#include "ops/MathOpsInternal.h"

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
  const int64_t n = gradients.NumElements();
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] > T(0) ? g[i] : T(0);
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

template <typename T>
void LeakyReluGradCompute(OpKernelContext* ctx, float alpha_attr) {
  const Tensor& gradients = ctx->input(0);
  const Tensor& features = ctx->input(1);
  if (!(gradients.shape() == features.shape())) {
    ctx->SetStatus(math_internal::KernelInvalidArgument(ctx, "LeakyReluGrad: gradients ",
                                                        gradients.shape().DebugString(), " and features ",
                                                        features.shape().DebugString(), " must have the same shape"));
    return;
  }
  Tensor* output = ctx->allocate_output(0, gradients.dtype(), gradients.shape());
  if (output == nullptr) return;
  const T alpha = static_cast<T>(alpha_attr);
  const T* g = gradients.data<T>();
  const T* x = features.data<T>();
  T* out = output->data<T>();
  for (int64_t i = 0; i < gradients.NumElements(); ++i) out[i] = x[i] > T(0) ? g[i] : g[i] * alpha;
}

StatusOr<std::unique_ptr<OpKernel>> MakeLeakyReluGradKernel(OpKernelConstruction& construction) {
  float alpha = 0.2f;
  CLAB_RETURN_IF_ERROR(construction.GetAttr("alpha", &alpha));
  const DataType dtype = construction.input_type(0);
  if (dtype != DT_FLOAT && dtype != DT_DOUBLE)
    return errors::InvalidArgument("Node '", construction.name(), "' (op LeakyReluGrad) has no CPU kernel for type ",
                                   DataTypeName(dtype));
  return LambdaKernel(
      [alpha, dtype](OpKernelContext* ctx) {
        if (dtype == DT_FLOAT) LeakyReluGradCompute<float>(ctx, alpha);
        else LeakyReluGradCompute<double>(ctx, alpha);
      },
      /*expensive=*/false)(construction);
}

template <typename T>
void ReductionGradCompute(OpKernelContext* ctx, bool mean) {
  const Tensor& grad = ctx->input(0);
  const Tensor& input = ctx->input(1);
  const Tensor& axes = ctx->input(2);
  const int rank = input.shape().rank();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t i = 0, i_end = axes.NumElements(); i < i_end; ++i) {
    int64_t axis = axes.dtype() == DT_INT64 ? axes.data<int64_t>()[i] : axes.data<int32_t>()[i];
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) {
      ctx->SetStatus(math_internal::KernelInvalidArgument(ctx, "reduction axis out of range for rank ", rank));
      return;
    }
    reduced[static_cast<size_t>(axis)] = true;
  }
  int64_t kept_elements = 1, count = 1;
  for (int d = 0; d < rank; ++d) (reduced[static_cast<size_t>(d)] ? count : kept_elements) *= input.shape().dim(d);
  if (grad.NumElements() != kept_elements) {
    ctx->SetStatus(math_internal::KernelInvalidArgument(ctx, "gradient ", grad.shape().DebugString(),
                                                        " does not match the reduction of ",
                                                        input.shape().DebugString()));
    return;
  }
  Tensor* output = ctx->allocate_output(0, grad.dtype(), input.shape());
  if (output == nullptr) return;
  const T* g = grad.data<T>();
  T* out = output->data<T>();
  const T scale = mean && count > 0 ? T(1) / static_cast<T>(count) : T(1);
  std::vector<int64_t> coordinate(static_cast<size_t>(rank), 0);
  for (int64_t i = 0, i_end = input.NumElements(); i < i_end; ++i) {
    // The index into the gradient: the coordinate with the reduced axes left out.
    int64_t source = 0;
    for (int d = 0; d < rank; ++d)
      if (!reduced[static_cast<size_t>(d)]) source = source * input.shape().dim(d) + coordinate[static_cast<size_t>(d)];
    out[i] = g[source] * scale;
    for (int d = rank - 1; d >= 0; --d) {
      if (++coordinate[static_cast<size_t>(d)] < input.shape().dim(d)) break;
      coordinate[static_cast<size_t>(d)] = 0;
    }
  }
}

class ReductionGradKernel : public OpKernel {
 public:
  explicit ReductionGradKernel(bool mean) : mean_(mean) {}
  void Compute(OpKernelContext* ctx) override {
    switch (ctx->input(0).dtype()) {
      case DT_FLOAT: return ReductionGradCompute<float>(ctx, mean_);
      case DT_DOUBLE: return ReductionGradCompute<double>(ctx, mean_);
      default:
        ctx->SetStatus(math_internal::KernelInvalidArgument(ctx, "_ReductionGrad has no kernel for ",
                                                            DataTypeName(ctx->input(0).dtype())));
    }
  }

 private:
  const bool mean_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeReductionGradKernel(OpKernelConstruction& construction) {
  bool mean = false;
  CLAB_RETURN_IF_ERROR(construction.GetAttr("mean", &mean));
  return std::unique_ptr<OpKernel>(new ReductionGradKernel(mean));
}

Status ReductionGradShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.input_shape(1));
  return OkStatus();
}

}  // namespace

void RegisterNnGradOps(OpRegistry& registry) {
  registry.Register("_ReductionGrad")
      .Input("grad: T")
      .Input("input: T")
      .Input("reduction_indices: Tidx")
      .Output("output: T")
      .Attr("T: {float, double}")
      .Attr("Tidx: {int32, int64} = DT_INT32")
      .Attr("mean: bool = false")
      .SetShapeFn(ReductionGradShape)
      .Kernel("CPU", MakeReductionGradKernel)
      .Summary("The gradient of Sum or Mean: grad spread over the reduced axes of input's shape.")
      .Group("math");
  registry.Register("ReluGrad")
      .Input("gradients: T")
      .Input("features: T")
      .Output("backprops: T")
      .Attr("T: {float, double}")
      .SetShapeFn(math_internal::UnchangedShape)
      .Kernel("CPU", LambdaKernel(ReluGradKernel, /*expensive=*/false))
      .Summary("The gradient of Relu: gradients where features > 0, else 0.")
      .Group("nn");
  registry.Register("LeakyReluGrad")
      .Input("gradients: T")
      .Input("features: T")
      .Output("backprops: T")
      .Attr("alpha: float = 0.2")
      .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
      .SetShapeFn(math_internal::UnchangedShape)
      .Kernel("CPU", MakeLeakyReluGradKernel)
      .Summary("The gradient of LeakyRelu: gradients where features > 0, else alpha * gradients.")
      .Group("nn");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kNnGradOpFamily("nn grad", RegisterNnGradOps);

}  // namespace clab
