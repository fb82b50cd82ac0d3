// Sums, means and sqrt-n means of rows picked by index into segments, the reductions of an
// embedding column's combiner (tf.nn.embedding_lookup_sparse):
//   output[s] = combine(data[indices[k]] for every k with segment_ids[k] == s),
// with segment_ids sorted, output rows 0..last id (segments without entries are zero). The
// Grad ops spread a gradient back over the rows the indices picked:
//   output[indices[k]] += grad[segment_ids[k]] / count (or / sqrt(count)).
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"

#include <cmath>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;
using array_internal::ReadIndexVector;

enum class Combine { kSum, kMean, kSqrtN };

// Indices and segment ids as vectors of the same length, or false with the status set.
bool ReadSegments(OpKernelContext* ctx, int indices_at, std::vector<int64_t>* indices, std::vector<int64_t>* ids) {
  const Tensor& index_tensor = ctx->input(indices_at);
  const Tensor& id_tensor = ctx->input(indices_at + 1);
  auto read_indices = ReadIndexVector(index_tensor);
  auto read_ids = ReadIndexVector(id_tensor);
  if (!read_indices.ok() || !read_ids.ok() || index_tensor.shape().rank() != 1 || id_tensor.shape().rank() != 1) {
    FailInvalidArgument(ctx, "indices and segment_ids must be integer vectors, got ",
                        index_tensor.shape().DebugString(), " and ", id_tensor.shape().DebugString());
    return false;
  }
  if (read_indices->size() != read_ids->size()) {
    FailInvalidArgument(ctx, "segment_ids and indices should have same size: ", read_ids->size(), " and ",
                        read_indices->size());
    return false;
  }
  for (size_t k = 0; k < read_ids->size(); ++k) {
    if ((*read_ids)[k] < 0 || (k > 0 && (*read_ids)[k] < (*read_ids)[k - 1])) {
      FailInvalidArgument(ctx, "segment ids are not increasing: segment_ids[", k, "] = ", (*read_ids)[k]);
      return false;
    }
  }
  *indices = std::move(*read_indices);
  *ids = std::move(*read_ids);
  return true;
}

template <typename T>
T Divisor(Combine combine, int64_t count) {
  if (combine == Combine::kMean) return static_cast<T>(count);
  if (combine == Combine::kSqrtN) return std::sqrt(static_cast<T>(count));
  return T(1);
}

template <typename T>
void Reduce(const Tensor& data, const std::vector<int64_t>& indices, const std::vector<int64_t>& ids, int64_t inner,
            Combine combine, Tensor* out) {
  T* o = out->data<T>();
  std::fill(o, o + out->NumElements(), T(0));
  const T* in = data.data<T>();
  size_t k = 0;
  while (k < ids.size()) {
    size_t end = k;
    T* row = o + ids[k] * inner;
    for (; end < ids.size() && ids[end] == ids[k]; ++end) {
      const T* from = in + indices[end] * inner;
      for (int64_t j = 0; j < inner; ++j) row[j] += from[j];
    }
    const T divisor = Divisor<T>(combine, static_cast<int64_t>(end - k));
    if (combine != Combine::kSum)
      for (int64_t j = 0; j < inner; ++j) row[j] /= divisor;
    k = end;
  }
}

void SegmentReductionKernel(OpKernelContext* ctx, Combine combine) {
  const Tensor& data = ctx->input(0);
  std::vector<int64_t> indices, ids;
  if (!ReadSegments(ctx, 1, &indices, &ids)) return;
  if (data.shape().rank() < 1) return FailInvalidArgument(ctx, "data must be at least a vector");
  const int64_t rows = data.shape().dim(0);
  for (size_t k = 0; k < indices.size(); ++k)
    if (indices[k] < 0 || indices[k] >= rows)
      return FailInvalidArgument(ctx, "indices[", k, "] = ", indices[k], " is out of range [0, ", rows, ")");
  std::vector<int64_t> dims = data.shape().dims();
  dims[0] = ids.empty() ? 0 : ids.back() + 1;
  const int64_t inner = rows == 0 ? 0 : data.NumElements() / rows;
  Tensor* out = ctx->allocate_output(0, data.dtype(), TensorShape(dims));
  if (out == nullptr) return;
  CLAB_SWITCH_REAL_TYPES(
      data.dtype(), T, { Reduce<T>(data, indices, ids, inner, combine, out); },
      return FailInvalidArgument(ctx, "no kernel for ", DataTypeName(data.dtype())));
}

template <typename T>
void SpreadBack(const Tensor& grad, const std::vector<int64_t>& indices, const std::vector<int64_t>& ids, int64_t inner,
                Combine combine, Tensor* out) {
  T* o = out->data<T>();
  std::fill(o, o + out->NumElements(), T(0));
  const T* g = grad.data<T>();
  size_t k = 0;
  while (k < ids.size()) {
    size_t end = k;
    while (end < ids.size() && ids[end] == ids[k]) ++end;
    const T divisor = Divisor<T>(combine, static_cast<int64_t>(end - k));
    for (size_t e = k; e < end; ++e) {
      T* row = o + indices[e] * inner;
      const T* from = g + ids[e] * inner;
      for (int64_t j = 0; j < inner; ++j) row[j] += from[j] / divisor;
    }
    k = end;
  }
}

void SegmentGradKernel(OpKernelContext* ctx, Combine combine) {
  const Tensor& grad = ctx->input(0);
  std::vector<int64_t> indices, ids;
  if (!ReadSegments(ctx, 1, &indices, &ids)) return;
  auto dim0 = ReadIndexVector(ctx->input(3));
  if (!dim0.ok() || dim0->size() != 1 || (*dim0)[0] < 0)
    return FailInvalidArgument(ctx, "output_dim0 must be a non-negative scalar");
  if (grad.shape().rank() < 1) return FailInvalidArgument(ctx, "grad must be at least a vector");
  const int64_t grad_rows = grad.shape().dim(0);
  for (size_t k = 0; k < ids.size(); ++k) {
    if (ids[k] >= grad_rows)
      return FailInvalidArgument(ctx, "segment_ids[", k, "] = ", ids[k], " is not a row of grad (", grad_rows,
                                 " rows)");
    if (indices[k] < 0 || indices[k] >= (*dim0)[0])
      return FailInvalidArgument(ctx, "indices[", k, "] = ", indices[k], " is out of range [0, ", (*dim0)[0], ")");
  }
  std::vector<int64_t> dims = grad.shape().dims();
  dims[0] = (*dim0)[0];
  const int64_t inner = grad_rows == 0 ? 0 : grad.NumElements() / grad_rows;
  Tensor* out = ctx->allocate_output(0, grad.dtype(), TensorShape(dims));
  if (out == nullptr) return;
  if (grad.dtype() == DT_FLOAT) return SpreadBack<float>(grad, indices, ids, inner, combine, out);
  if (grad.dtype() == DT_DOUBLE) return SpreadBack<double>(grad, indices, ids, inner, combine, out);
  FailInvalidArgument(ctx, "no kernel for ", DataTypeName(grad.dtype()));
}

Status ReductionShape(ShapeContext& c) {
  const PartialShape& data = c.input_shape(0);
  if (!data.known_rank() || data.rank() < 1) {
    c.set_output(0, PartialShape());
    return OkStatus();
  }
  std::vector<int64_t> dims = data.dims();
  dims[0] = -1;  // the last segment id + 1: known here when the ids are a constant
  if (const Tensor* ids = c.input_constant(2)) {
    auto values = ReadIndexVector(*ids);
    if (values.ok()) dims[0] = values->empty() ? 0 : values->back() + 1;
  }
  c.set_output(0, PartialShape(dims));
  return OkStatus();
}

Status GradShape(ShapeContext& c) {
  const PartialShape& grad = c.input_shape(0);
  if (!grad.known_rank() || grad.rank() < 1) {
    c.set_output(0, PartialShape());
    return OkStatus();
  }
  std::vector<int64_t> dims = grad.dims();
  dims[0] = -1;
  if (const Tensor* dim0 = c.input_constant(3)) {
    auto value = ReadIndexVector(*dim0);
    if (value.ok() && value->size() == 1) dims[0] = (*value)[0];
  }
  c.set_output(0, PartialShape(dims));
  return OkStatus();
}

void RegisterReduction(OpRegistry& registry, const char* name, Combine combine, const char* types,
                       const char* summary) {
  registry.Register(name)
      .Input("data: T")
      .Input("indices: Tidx")
      .Input("segment_ids: Tsegmentids")
      .Output("output: T")
      .Attr(types)
      .Attr("Tidx: {int32, int64} = DT_INT32")
      .Attr("Tsegmentids: {int32, int64} = DT_INT32")
      .SetShapeFn(ReductionShape)
      .Kernel("CPU", LambdaKernel([combine](OpKernelContext* ctx) { SegmentReductionKernel(ctx, combine); }))
      .Summary(summary)
      .Group("math");
}

void RegisterGrad(OpRegistry& registry, const char* name, Combine combine, const char* summary) {
  registry.Register(name)
      .Input("grad: T")
      .Input("indices: Tidx")
      .Input("segment_ids: Tsegmentids")
      .Input("output_dim0: int32")
      .Output("output: T")
      .Attr("T: {float, double}")
      .Attr("Tidx: {int32, int64} = DT_INT32")
      .Attr("Tsegmentids: {int32, int64} = DT_INT32")
      .SetShapeFn(GradShape)
      .Kernel("CPU", LambdaKernel([combine](OpKernelContext* ctx) { SegmentGradKernel(ctx, combine); }))
      .Summary(summary)
      .Group("math");
}

}  // namespace

void RegisterSparseSegmentOps(OpRegistry& registry) {
  RegisterReduction(registry, "SparseSegmentSum", Combine::kSum,
                    "T: {float, double, int32, int64, uint8, int16, int8, uint16, half}",
                    "Sums of the rows data[indices] per segment (segment_ids sorted).");
  RegisterReduction(registry, "SparseSegmentMean", Combine::kMean, "T: {float, double}",
                    "Means of the rows data[indices] per segment (segment_ids sorted).");
  RegisterReduction(registry, "SparseSegmentSqrtN", Combine::kSqrtN, "T: {float, double}",
                    "Sums of the rows data[indices] per segment, divided by the square root of their count.");
  RegisterGrad(registry, "SparseSegmentMeanGrad", Combine::kMean,
               "The gradient of SparseSegmentMean: each segment's gradient shared among its rows.");
  RegisterGrad(registry, "SparseSegmentSqrtNGrad", Combine::kSqrtN, "The gradient of SparseSegmentSqrtN.");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kSparseSegmentOpFamily("sparse segment", RegisterSparseSegmentOps);

}  // namespace clab
