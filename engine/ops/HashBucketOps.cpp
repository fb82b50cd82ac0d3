// The ops that turn raw feature values into bucket ids, as tf.feature_column's hashed and
// bucketized columns write them:
//   StringToHashBucketFast: Fingerprint64(s) mod num_buckets, TensorFlow's ids exactly;
//   Bucketize: the number of boundaries <= x (boundaries [0, 10, 100]: -5 -> 0, 10 -> 2,
//   150 -> 3).
#include "clab/core/Fingerprint.h"
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"

#include <algorithm>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;

Status SameShapeAsInput(ShapeContext& c) {
  c.set_output(0, c.input_shape(0));
  return OkStatus();
}

StatusOr<std::unique_ptr<OpKernel>> MakeHashBucketKernel(OpKernelConstruction& c) {
  int64_t num_buckets = 0;
  CLAB_RETURN_IF_ERROR(c.GetAttr("num_buckets", &num_buckets));
  if (num_buckets < 1)
    return errors::InvalidArgument("Node '", c.name(), "' (op StringToHashBucketFast): num_buckets = ", num_buckets,
                                   " must be at least 1");
  const auto buckets = static_cast<uint64_t>(num_buckets);
  return LambdaKernel([buckets](OpKernelContext* ctx) {
    const Tensor& input = ctx->input(0);
    Tensor* out = ctx->allocate_output(0, DT_INT64, input.shape());
    if (out == nullptr) return;
    const std::string* in = input.data<std::string>();
    int64_t* o = out->data<int64_t>();
    for (int64_t i = 0, n = input.NumElements(); i < n; ++i)
      o[i] = static_cast<int64_t>(Fingerprint64(in[i]) % buckets);
  })(c);
}

template <typename T>
void BucketizeValues(const Tensor& input, const std::vector<float>& boundaries, Tensor* out) {
  const T* in = input.data<T>();
  int32_t* o = out->data<int32_t>();
  for (int64_t i = 0, n = input.NumElements(); i < n; ++i) {
    // Compared as TensorFlow compares them: the value converted to float.
    const auto value = static_cast<float>(in[i]);
    o[i] = static_cast<int32_t>(std::upper_bound(boundaries.begin(), boundaries.end(), value) - boundaries.begin());
  }
}

StatusOr<std::unique_ptr<OpKernel>> MakeBucketizeKernel(OpKernelConstruction& c) {
  std::vector<float> boundaries;
  CLAB_RETURN_IF_ERROR(c.GetAttr("boundaries", &boundaries));
  for (size_t i = 1; i < boundaries.size(); ++i)
    if (!(boundaries[i - 1] <= boundaries[i]))
      return errors::InvalidArgument("Node '", c.name(), "' (op Bucketize): boundaries must be sorted, but boundaries[",
                                     i - 1, "] = ", boundaries[i - 1], " > boundaries[", i, "] = ", boundaries[i]);
  return LambdaKernel(
      [boundaries](OpKernelContext* ctx) {
        const Tensor& input = ctx->input(0);
        Tensor* out = ctx->allocate_output(0, DT_INT32, input.shape());
        if (out == nullptr) return;
        switch (input.dtype()) {
          case DT_FLOAT: return BucketizeValues<float>(input, boundaries, out);
          case DT_DOUBLE: return BucketizeValues<double>(input, boundaries, out);
          case DT_INT32: return BucketizeValues<int32_t>(input, boundaries, out);
          case DT_INT64: return BucketizeValues<int64_t>(input, boundaries, out);
          default: return FailInvalidArgument(ctx, "Bucketize has no kernel for ", DataTypeName(input.dtype()));
        }
      },
      /*expensive=*/false)(c);
}

}  // namespace

void RegisterHashBucketOps(OpRegistry& registry) {
  registry.Register("StringToHashBucketFast")
      .Input("input: string")
      .Output("output: int64")
      .Attr("num_buckets: int >= 1")
      .SetShapeFn(SameShapeAsInput)
      .Kernel("CPU", MakeHashBucketKernel)
      .Summary("Each string's bucket: Fingerprint64(s) mod num_buckets, as TensorFlow computes it.")
      .Group("string");
  registry.Register("Bucketize")
      .Input("input: T")
      .Output("output: int32")
      .Attr("T: {int32, int64, float, double}")
      .Attr("boundaries: list(float)")
      .SetShapeFn(SameShapeAsInput)
      .Kernel("CPU", MakeBucketizeKernel)
      .Summary("Each value's bucket: the number of boundaries at or below it.")
      .Group("math");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kHashBucketOpFamily("hash bucket", RegisterHashBucketOps);

}  // namespace clab
