// Classification losses. SparseSoftmaxCrossEntropyWithLogits(features [batch, classes],
// labels [batch]) gives each example's loss, -log softmax(features)[label], and its gradient
// with respect to the features, softmax(features) - onehot(label), as TensorFlow's op does;
// the gradient function then only scales that second output.
#include "ops/MathOpsInternal.h"

#include "ops/RegisterOps.h"

#include <cmath>

namespace clab {
namespace {

template <typename T, typename Label>
void SparseSoftmaxXentCompute(OpKernelContext* ctx) {
  const Tensor& features = ctx->input(0);
  const Tensor& labels = ctx->input(1);
  if (features.shape().rank() != 2 || labels.shape().rank() != 1 ||
      labels.shape().dim(0) != features.shape().dim(0)) {
    ctx->SetStatus(math_internal::KernelInvalidArgument(
        ctx, "features must be [batch, classes] and labels [batch], got ", features.shape().DebugString(), " and ",
        labels.shape().DebugString()));
    return;
  }
  const int64_t batch = features.shape().dim(0);
  const int64_t classes = features.shape().dim(1);
  Tensor* loss = ctx->allocate_output(0, features.dtype(), TensorShape({batch}));
  Tensor* backprop = ctx->allocate_output(1, features.dtype(), features.shape());
  if (loss == nullptr || backprop == nullptr) return;
  const T* logits = features.data<T>();
  const Label* label = labels.data<Label>();
  for (int64_t r = 0; r < batch; ++r) {
    const Label target = label[r];
    if (target < 0 || target >= classes) {
      ctx->SetStatus(math_internal::KernelInvalidArgument(ctx, "Received a label value of ", target,
                                                          " which is outside the valid range of [0, ", classes,
                                                          "). Label values: example ", r));
      return;
    }
    const T* row = logits + r * classes;
    T* grad = backprop->data<T>() + r * classes;
    T max = row[0];
    for (int64_t c = 1; c < classes; ++c) max = std::max(max, row[c]);
    double sum = 0;
    for (int64_t c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(row[c] - max));
    const double log_sum = std::log(sum);
    for (int64_t c = 0; c < classes; ++c)
      grad[c] = static_cast<T>(std::exp(static_cast<double>(row[c] - max) - log_sum) - (c == target ? 1.0 : 0.0));
    loss->data<T>()[r] = static_cast<T>(log_sum - static_cast<double>(row[target] - max));
  }
}

void SparseSoftmaxXentKernel(OpKernelContext* ctx) {
  const DataType type = ctx->input(0).dtype();
  const bool int64_labels = ctx->input(1).dtype() == DT_INT64;
  if (type == DT_FLOAT) {
    return int64_labels ? SparseSoftmaxXentCompute<float, int64_t>(ctx) : SparseSoftmaxXentCompute<float, int32_t>(ctx);
  }
  if (type == DT_DOUBLE) {
    return int64_labels ? SparseSoftmaxXentCompute<double, int64_t>(ctx)
                        : SparseSoftmaxXentCompute<double, int32_t>(ctx);
  }
  ctx->SetStatus(math_internal::KernelInvalidArgument(ctx, "SparseSoftmaxCrossEntropyWithLogits has no kernel for ",
                                                      DataTypeName(type)));
}

Status SparseSoftmaxXentShape(ShapeContext& ctx) {
  const PartialShape& features = ctx.input_shape(0);
  if (features.known_rank() && features.rank() != 2)
    return ctx.MakeError(absl::StrCat("features must be rank 2 ([batch, classes]), got rank ", features.rank()));
  if (features.known_rank()) {
    ctx.set_output(0, PartialShape(std::vector<int64_t>{features.dim(0)}));
    ctx.set_output(1, features);
  } else {
    ctx.set_output(0, PartialShape(std::vector<int64_t>{-1}));
    ctx.set_output(1, features);
  }
  return OkStatus();
}

}  // namespace

void RegisterNnLossOps(OpRegistry& registry) {
  registry.Register("SparseSoftmaxCrossEntropyWithLogits")
      .Input("features: T")
      .Input("labels: Tlabels")
      .Output("loss: T")
      .Output("backprop: T")
      .Attr("T: {float, double}")
      .Attr("Tlabels: {int32, int64} = DT_INT64")
      .SetShapeFn(SparseSoftmaxXentShape)
      .Kernel("CPU", LambdaKernel(SparseSoftmaxXentKernel))
      .Summary("Per-example cross-entropy of softmax(features) against integer labels, and its gradient.")
      .Group("nn");
}

}  // namespace clab
