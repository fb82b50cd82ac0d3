// Classification losses. SparseSoftmaxCrossEntropyWithLogits(features [batch, classes],
// labels [batch]) gives each example's loss, -log softmax(features)[label], and its gradient
// with respect to the features, softmax(features) - onehot(label), as TensorFlow's op does;
// the gradient function then only scales that second output. SoftmaxCrossEntropyWithLogits
// takes labels as a probability distribution per example ([batch, classes]): the loss is
// -sum(labels * log softmax(features)) and the backprop softmax(features) - labels.
#include "ops/MathOpsInternal.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace clab {
namespace {

// Outputs 0 (loss, [batch]) and 1 (backprop, the features' shape) of a cross-entropy op with
// features [batch, classes] in input 0; false when either could not be allocated.
bool AllocateXentOutputs(OpKernelContext* ctx, Tensor** loss, Tensor** backprop) {
  const Tensor& features = ctx->input(0);
  *loss = ctx->allocate_output(0, features.dtype(), TensorShape({features.shape().dim(0)}));
  *backprop = ctx->allocate_output(1, features.dtype(), features.shape());
  return *loss != nullptr && *backprop != nullptr;
}

// The row's maximum and log(sum(exp(row - max))): log softmax(row)[c] is then
// (row[c] - max) - log_sum, computed without overflow.
template <typename T>
std::pair<T, double> MaxAndLogSumExp(const T* row, int64_t classes) {
  const T max = *std::max_element(row, row + classes);
  double sum = 0;
  for (int64_t c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(row[c] - max));
  return {max, std::log(sum)};
}

template <typename T, typename Label>
void SparseSoftmaxXentCompute(OpKernelContext* ctx) {
  const Tensor& features = ctx->input(0);
  const Tensor& labels = ctx->input(1);
  if (features.shape().rank() != 2 || labels.shape().rank() != 1 || labels.shape().dim(0) != features.shape().dim(0)) {
    ctx->SetStatus(
        math_internal::KernelInvalidArgument(ctx, "features must be [batch, classes] and labels [batch], got ",
                                             features.shape().DebugString(), " and ", labels.shape().DebugString()));
    return;
  }
  const int64_t batch = features.shape().dim(0);
  const int64_t classes = features.shape().dim(1);
  Tensor *loss = nullptr, *backprop = nullptr;
  if (!AllocateXentOutputs(ctx, &loss, &backprop)) return;
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
    const auto [max, log_sum] = MaxAndLogSumExp(row, classes);
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

template <typename T>
void SoftmaxXentCompute(OpKernelContext* ctx) {
  const Tensor& features = ctx->input(0);
  const Tensor& labels = ctx->input(1);
  if (features.shape().rank() != 2 || !(labels.shape() == features.shape())) {
    ctx->SetStatus(math_internal::KernelInvalidArgument(
        ctx, "SoftmaxCrossEntropyWithLogits: logits and labels must be [batch, classes] of the same size: logits_size=",
        features.shape().DebugString(), " labels_size=", labels.shape().DebugString()));
    return;
  }
  const int64_t batch = features.shape().dim(0);
  const int64_t classes = features.shape().dim(1);
  Tensor *loss = nullptr, *backprop = nullptr;
  if (!AllocateXentOutputs(ctx, &loss, &backprop)) return;
  for (int64_t r = 0; r < batch; ++r) {
    const T* row = features.data<T>() + r * classes;
    const T* target = labels.data<T>() + r * classes;
    T* grad = backprop->data<T>() + r * classes;
    if (classes == 0) {
      loss->data<T>()[r] = T(0);
      continue;
    }
    const auto [max, log_sum] = MaxAndLogSumExp(row, classes);
    double total = 0;
    for (int64_t c = 0; c < classes; ++c) {
      const double log_softmax = static_cast<double>(row[c] - max) - log_sum;
      total -= static_cast<double>(target[c]) * log_softmax;
      grad[c] = static_cast<T>(std::exp(log_softmax) - static_cast<double>(target[c]));
    }
    loss->data<T>()[r] = static_cast<T>(total);
  }
}

void SoftmaxXentKernel(OpKernelContext* ctx) {
  const DataType type = ctx->input(0).dtype();
  if (type == DT_FLOAT) return SoftmaxXentCompute<float>(ctx);
  if (type == DT_DOUBLE) return SoftmaxXentCompute<double>(ctx);
  ctx->SetStatus(math_internal::KernelInvalidArgument(ctx, "SoftmaxCrossEntropyWithLogits has no kernel for ",
                                                      DataTypeName(type)));
}

Status SoftmaxXentShape(ShapeContext& ctx) {
  const PartialShape& features = ctx.input_shape(0);
  const PartialShape& labels = ctx.input_shape(1);
  for (const PartialShape* shape : {&features, &labels})
    if (shape->known_rank() && shape->rank() != 2)
      return ctx.MakeError(absl::StrCat(shape == &features ? "logits" : "labels",
                                        " must be rank 2 ([batch, classes]), got rank ", shape->rank()));
  auto merged = features.MergeWith(labels);
  if (!merged.ok())
    return ctx.MakeError(absl::StrCat("logits and labels must be the same size: logits_size=", features.DebugString(),
                                      " labels_size=", labels.DebugString()));
  const PartialShape both = merged->known_rank() ? *merged : PartialShape::UnknownOfRank(2);
  ctx.set_output(0, PartialShape(std::vector<int64_t>{both.dim(0)}));
  ctx.set_output(1, both);
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
  registry.Register("SoftmaxCrossEntropyWithLogits")
      .Input("features: T")
      .Input("labels: T")
      .Output("loss: T")
      .Output("backprop: T")
      .Attr("T: {float, double}")
      .SetShapeFn(SoftmaxXentShape)
      .Kernel("CPU", LambdaKernel(SoftmaxXentKernel))
      .Summary("Per-example cross-entropy of softmax(features) against label distributions, and its gradient.")
      .Group("nn");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kNnLossOpFamily("nn loss", RegisterNnLossOps);

}  // namespace clab
