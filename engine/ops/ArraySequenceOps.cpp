// Ops over sequences that TensorFlow-written RNN and feature-column graphs use:
//  - Unique(x): the distinct values of a vector in order of first appearance, and for each
//    element of x the position of its value among them (NaNs never equal each other, so
//    each is its own value; 0 and -0 are one value);
//  - ReverseSequence(input, seq_lengths): along batch_dim, each example's first
//    seq_lengths[b] entries along seq_dim reversed and the rest left in place (the backward
//    pass of a bidirectional RNN).
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/ElementCopy.h"

#include <unordered_map>

namespace clab {
namespace {

using array_internal::CopyElements;
using array_internal::FailInvalidArgument;

template <typename T>
void UniqueOf(const T* values, int64_t n, std::vector<int64_t>* first, std::vector<int64_t>* idx) {
  std::unordered_map<T, int64_t> position;
  for (int64_t i = 0; i < n; ++i) {
    auto [it, inserted] = position.emplace(values[i], static_cast<int64_t>(first->size()));
    if (inserted) first->push_back(i);
    (*idx)[static_cast<size_t>(i)] = it->second;
  }
}

void UniqueCompute(OpKernelContext* ctx, DataType out_idx) {
  const Tensor& x = ctx->input(0);
  if (x.shape().rank() != 1)
    return FailInvalidArgument(ctx, "unique expects a 1D vector, got ", x.shape().DebugString());
  const int64_t n = x.NumElements();
  std::vector<int64_t> first, idx(static_cast<size_t>(n));
  if (x.dtype() == DT_STRING) {
    UniqueOf(x.data<std::string>(), n, &first, &idx);
  } else if (x.dtype() == DT_BOOL) {
    UniqueOf(x.data<bool>(), n, &first, &idx);
  } else {
    CLAB_SWITCH_REAL_TYPES(x.dtype(), T, UniqueOf(x.data<T>(), n, &first, &idx),
                           return FailInvalidArgument(ctx, "Unique has no kernel for ", DataTypeName(x.dtype())));
  }
  Tensor* y = ctx->allocate_output(0, x.dtype(), TensorShape({static_cast<int64_t>(first.size())}));
  Tensor* positions = ctx->allocate_output(1, out_idx, x.shape());
  if (y == nullptr || positions == nullptr) return;
  for (size_t k = 0; k < first.size(); ++k) CopyElements(x, first[k], y, static_cast<int64_t>(k), 1);
  for (int64_t i = 0; i < n; ++i) {
    if (out_idx == DT_INT64) positions->data<int64_t>()[i] = idx[static_cast<size_t>(i)];
    else positions->data<int32_t>()[i] = static_cast<int32_t>(idx[static_cast<size_t>(i)]);
  }
}

Status UniqueShape(ShapeContext& c) {
  const PartialShape& x = c.input_shape(0);
  if (x.known_rank() && x.rank() != 1) return c.MakeError(absl::StrCat("Shape must be rank 1 but is rank ", x.rank()));
  c.set_output(0, PartialShape({-1}));
  c.set_output(1, x.known_rank() ? x : PartialShape({-1}));
  return OkStatus();
}

void ReverseSequenceCompute(OpKernelContext* ctx, int64_t seq_dim, int64_t batch_dim) {
  const Tensor& input = ctx->input(0);
  const Tensor& lengths = ctx->input(1);
  const int rank = input.shape().rank();
  if (seq_dim < 0 || seq_dim >= rank || batch_dim < 0 || batch_dim >= rank || seq_dim == batch_dim)
    return FailInvalidArgument(ctx, "seq_dim ", seq_dim, " and batch_dim ", batch_dim,
                               " must be two different axes of the input's rank ", rank);
  const int64_t batch = input.shape().dim(static_cast<int>(batch_dim));
  const int64_t steps = input.shape().dim(static_cast<int>(seq_dim));
  if (lengths.shape().rank() != 1 || lengths.NumElements() != batch)
    return FailInvalidArgument(ctx, "seq_lengths must be a vector of ", batch, " (input.dims(", batch_dim, ")), got ",
                               lengths.shape().DebugString());
  std::vector<int64_t> length(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    length[static_cast<size_t>(b)] =
        lengths.dtype() == DT_INT64 ? lengths.data<int64_t>()[b] : lengths.data<int32_t>()[b];
    if (length[static_cast<size_t>(b)] < 0 || length[static_cast<size_t>(b)] > steps)
      return FailInvalidArgument(ctx, "seq_lengths[", b, "] = ", length[static_cast<size_t>(b)], " is not in [0, ",
                                 steps, "] (input.dims(", seq_dim, "))");
  }
  Tensor* output = ctx->allocate_output(0, input.dtype(), input.shape());
  if (output == nullptr) return;
  // Row-major strides, so an element's coordinates along batch_dim and seq_dim can be read
  // from its flat index and the mirrored element found.
  std::vector<int64_t> stride(static_cast<size_t>(rank), 1);
  for (int d = rank - 2; d >= 0; --d)
    stride[static_cast<size_t>(d)] = stride[static_cast<size_t>(d) + 1] * input.shape().dim(d + 1);
  const int64_t seq_stride = stride[static_cast<size_t>(seq_dim)];
  const int64_t batch_stride = stride[static_cast<size_t>(batch_dim)];
  for (int64_t i = 0; i < input.NumElements(); ++i) {
    const int64_t b = (i / batch_stride) % batch;
    const int64_t t = (i / seq_stride) % steps;
    const int64_t len = length[static_cast<size_t>(b)];
    const int64_t from = t < len ? i + (len - 1 - 2 * t) * seq_stride : i;
    CopyElements(input, from, output, i, 1);
  }
}

Status ReverseSequenceShape(ShapeContext& c) {
  c.set_output(0, c.input_shape(0));
  return OkStatus();
}

}  // namespace

void RegisterArraySequenceOps(OpRegistry& registry) {
  registry.Register("Unique")
      .Input("x: T")
      .Output("y: T")
      .Output("idx: out_idx")
      .Attr("T: type")
      .Attr("out_idx: {int32, int64} = DT_INT32")
      .SetShapeFn(UniqueShape)
      .Kernel("CPU",
              [](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
                DataType out_idx = DT_INT32;
                CLAB_RETURN_IF_ERROR(c.GetAttr("out_idx", &out_idx));
                return LambdaKernel([out_idx](OpKernelContext* ctx) { UniqueCompute(ctx, out_idx); })(c);
              })
      .Summary("The distinct values of a vector in order of appearance, and each element's position among them.")
      .Group("array");
  registry.Register("ReverseSequence")
      .Input("input: T")
      .Input("seq_lengths: Tlen")
      .Output("output: T")
      .Attr("seq_dim: int")
      .Attr("batch_dim: int = 0")
      .Attr("T: type")
      .Attr("Tlen: {int32, int64} = DT_INT64")
      .SetShapeFn(ReverseSequenceShape)
      .Kernel("CPU",
              [](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
                int64_t seq_dim = 0, batch_dim = 0;
                CLAB_RETURN_IF_ERROR(c.GetAttr("seq_dim", &seq_dim));
                CLAB_RETURN_IF_ERROR(c.GetAttr("batch_dim", &batch_dim));
                return LambdaKernel(
                    [seq_dim, batch_dim](OpKernelContext* ctx) { ReverseSequenceCompute(ctx, seq_dim, batch_dim); })(c);
              })
      .Summary("Each example's first seq_lengths[b] steps reversed along seq_dim.")
      .Group("array");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kArraySequenceOpFamily("array sequence", RegisterArraySequenceOps);

}  // namespace clab
