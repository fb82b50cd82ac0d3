// The summary ops of tf.summary.scalar and tf.summary.merge: ScalarSummary serialises a
// Summary protocol buffer with one simple_value per tag, MergeSummary joins serialised
// Summaries into one. Their string outputs are what a summary writer puts into
// Event.summary, and what a graph's "summaries" collection names.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "tensorflow/summary.pb.h"

#include <set>

namespace clab::array_internal {
namespace {

void ScalarSummaryCompute(OpKernelContext* ctx) {
  const Tensor& tags = ctx->input(0);
  Tensor values;
  if (!ReadInput(ctx, 1, &values)) return;
  if (tags.dtype() != DT_STRING)
    return FailInvalidArgument(ctx, "tags must be strings, not ", DataTypeName(tags.dtype()));
  if (!(tags.shape() == values.shape()))
    return FailInvalidArgument(ctx, "tags and values are not the same shape: ", tags.shape().DebugString(),
                               " != ", values.shape().DebugString());
  if (!values.OnHost()) return FailInvalidArgument(ctx, "values must be in host memory");
  tensorflow::Summary summary;
  for (int64_t k = 0, k_end = tags.NumElements(); k < k_end; ++k) {
    auto* value = summary.add_value();
    value->set_tag(tags.data<std::string>()[k]);
    bool numeric = true;
    CLAB_SWITCH_POD_TYPES(values.dtype(), T, value->set_simple_value(static_cast<float>(values.data<T>()[k])),
                          numeric = false);
    if (!numeric) return FailInvalidArgument(ctx, "values of type ", DataTypeName(values.dtype()), " are not numbers");
  }
  Tensor out(DT_STRING, TensorShape{});
  out.data<std::string>()[0] = summary.SerializeAsString();
  ctx->set_output(0, std::move(out));
}

void MergeSummaryCompute(OpKernelContext* ctx) {
  tensorflow::Summary merged;
  std::set<std::string> tags;
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    const Tensor& in = ctx->input(i);
    for (int64_t k = 0, k_end = in.NumElements(); k < k_end; ++k) {
      tensorflow::Summary part;
      if (!part.ParseFromString(in.data<std::string>()[k]))
        return FailInvalidArgument(ctx, "input ", i, " element ", k, " is not a serialised Summary");
      for (const auto& value : part.value()) {
        if (!value.tag().empty() && !tags.insert(value.tag()).second)
          return FailInvalidArgument(ctx, "Duplicate tag ", value.tag(), " found in summary inputs");
        *merged.add_value() = value;
      }
    }
  }
  Tensor out(DT_STRING, TensorShape{});
  out.data<std::string>()[0] = merged.SerializeAsString();
  ctx->set_output(0, std::move(out));
}

Status ScalarOutput(ShapeContext& c) {
  c.set_output(0, PartialShape::Scalar());
  return OkStatus();
}

void RegisterSummaryOps(OpRegistry& registry) {
  registry.Register("ScalarSummary")
      .Input("tags: string")
      .Input("values: T")
      .Output("summary: string")
      .Attr("T: {float, double, int32, int64, uint8}")
      .SetShapeFn(ScalarOutput)
      .Kernel("CPU", LambdaKernel(ScalarSummaryCompute, /*expensive=*/false))
      .Summary("A serialised Summary with one simple_value per tag (tf.summary.scalar).")
      .Group("summary");
  registry.Register("MergeSummary")
      .Input("inputs: N * string")
      .Output("summary: string")
      .Attr("N: int >= 1")
      .SetShapeFn(ScalarOutput)
      .Kernel("CPU", LambdaKernel(MergeSummaryCompute, /*expensive=*/false))
      .Summary("The values of several serialised Summaries in one (tf.summary.merge).")
      .Group("summary");
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kSummaryOpFamily("summary", RegisterSummaryOps);

}  // namespace clab::array_internal
