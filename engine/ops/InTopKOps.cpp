// InTopK and InTopKV2 (tf.nn.in_top_k): whether each example's target class is among the k
// largest predictions. A class is in the top k when fewer than k classes predict strictly
// more, so ties with the target all count in its favour. A target outside [0, classes) or a
// non-finite prediction anywhere in the example's row gives false, as TensorFlow's kernel
// does. InTopK takes k as an attr, InTopKV2 as a scalar input.
#include "ops/MathOpsInternal.h"

#include <absl/strings/str_cat.h>

#include <cmath>

namespace clab {
namespace {

using math_internal::KernelInvalidArgument;

template <typename Index>
void InTopKRows(const float* predictions, const Index* targets, int64_t rows, int64_t classes, int64_t k, bool* out) {
  for (int64_t b = 0; b < rows; ++b) {
    const float* row = predictions + b * classes;
    const int64_t target = static_cast<int64_t>(targets[b]);
    bool cannot_say = target < 0 || target >= classes || !std::isfinite(row[target]);
    int64_t more_probable = 0;
    if (!cannot_say) {
      for (int64_t i = 0; i < classes; ++i) {
        if (!std::isfinite(row[i])) {
          cannot_say = true;
          break;
        }
        if (row[i] > row[target]) ++more_probable;
      }
    }
    out[b] = !cannot_say && more_probable < k;
  }
}

class InTopKKernel : public OpKernel {
 public:
  // k_attr < 0: k is input 2 (InTopKV2).
  explicit InTopKKernel(int64_t k_attr) : k_attr_(k_attr) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& predictions = ctx->input(0);
    const Tensor& targets = ctx->input(1);
    if (predictions.shape().rank() != 2) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "predictions must be 2-dimensional, got shape ",
                                           predictions.shape().DebugString()));
      return;
    }
    if (targets.shape().rank() != 1 || targets.shape().dim(0) != predictions.shape().dim(0)) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "targets must be a vector of one class per row of predictions ",
                                           predictions.shape().DebugString(), ", got shape ",
                                           targets.shape().DebugString()));
      return;
    }
    int64_t k = k_attr_;
    if (k < 0) {
      const Tensor& k_tensor = ctx->input(2);
      if (k_tensor.NumElements() != 1 || k_tensor.shape().rank() != 0) {
        ctx->SetStatus(KernelInvalidArgument(ctx, "k must be a scalar, got shape ", k_tensor.shape().DebugString()));
        return;
      }
      k = k_tensor.dtype() == DT_INT64 ? k_tensor.data<int64_t>()[0] : k_tensor.data<int32_t>()[0];
    }
    const int64_t rows = predictions.shape().dim(0), classes = predictions.shape().dim(1);
    Tensor* out = ctx->allocate_output(0, DT_BOOL, TensorShape{rows});
    if (out == nullptr) return;
    if (targets.dtype() == DT_INT64)
      InTopKRows(predictions.data<float>(), targets.data<int64_t>(), rows, classes, k, out->data<bool>());
    else InTopKRows(predictions.data<float>(), targets.data<int32_t>(), rows, classes, k, out->data<bool>());
  }

 private:
  const int64_t k_attr_;
};

Status InTopKShape(ShapeContext& c, bool k_input) {
  const PartialShape& predictions = c.input_shape(0);
  const PartialShape& targets = c.input_shape(1);
  if (predictions.known_rank() && predictions.rank() != 2)
    return c.MakeError(absl::StrCat("predictions must be rank 2 but is rank ", predictions.rank()));
  if (targets.known_rank() && targets.rank() != 1)
    return c.MakeError(absl::StrCat("targets must be rank 1 but is rank ", targets.rank()));
  if (k_input && c.input_shape(2).known_rank() && c.input_shape(2).rank() != 0)
    return c.MakeError(absl::StrCat("k must be a scalar but is rank ", c.input_shape(2).rank()));
  const int64_t rows_p = predictions.known_rank() ? predictions.dim(0) : -1;
  const int64_t rows_t = targets.known_rank() ? targets.dim(0) : -1;
  if (rows_p >= 0 && rows_t >= 0 && rows_p != rows_t)
    return c.MakeError(absl::StrCat("Dimensions must be equal, but are ", rows_p, " and ", rows_t));
  c.set_output(0, PartialShape({rows_p >= 0 ? rows_p : rows_t}));
  return OkStatus();
}

void RegisterInTopKOps(OpRegistry& registry) {
  registry.Register("InTopK")
      .Input("predictions: float")
      .Input("targets: T")
      .Output("precision: bool")
      .Attr("k: int")
      .Attr("T: {int32, int64} = DT_INT32")
      .SetShapeFn([](ShapeContext& c) { return InTopKShape(c, false); })
      .Kernel("CPU",
              [](OpKernelConstruction& construction) -> StatusOr<std::unique_ptr<OpKernel>> {
                int64_t k = 0;
                CLAB_RETURN_IF_ERROR(construction.GetAttr("k", &k));
                if (k < 0)
                  return errors::InvalidArgument("Node '", construction.name(), "' (op InTopK): k must be >= 0, got ",
                                                 k);
                return std::unique_ptr<OpKernel>(new InTopKKernel(k));
              })
      .Summary("Whether each row's target class is among its k largest predictions.")
      .Group("nn");
  registry.Register("InTopKV2")
      .Input("predictions: float")
      .Input("targets: T")
      .Input("k: T")
      .Output("precision: bool")
      .Attr("T: {int32, int64} = DT_INT32")
      .SetShapeFn([](ShapeContext& c) { return InTopKShape(c, true); })
      .Kernel("CPU",
              [](OpKernelConstruction&) -> StatusOr<std::unique_ptr<OpKernel>> {
                return std::unique_ptr<OpKernel>(new InTopKKernel(-1));
              })
      .Summary("Whether each row's target class is among its k largest predictions (k an input).")
      .Group("nn");
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kInTopKOpFamily("in top k", RegisterInTopKOps);

}  // namespace clab
