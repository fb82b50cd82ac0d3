// Sparse tensors as TensorFlow passes them between ops: indices [N, rank] (int64), values
// [N] and a dense shape [rank]. The ops the feature columns put in an input layer:
//   SparseReshape: the same entries under another dense shape (one dimension may be -1);
//   SparseFillEmptyRows: rows without entries get one entry [row, 0, ...] = default_value,
//     entries come out grouped by row, and reverse_index_map says where each input went;
//   SparseFillEmptyRowsGrad: its gradient, by that map;
//   SparseToDense: a dense tensor of default_value with the entries written in.
// Every index read from an input is checked against the dense shape before it is used.
#include "clab/core/TensorSize.h"
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/ElementCopy.h"

namespace clab {
namespace {

using array_internal::CopyElements;
using array_internal::FailInvalidArgument;
using array_internal::ReadIndexVector;

// Checks that `indices` is an int64 matrix [N, rank] and `values` (when given) a vector [N].
bool CheckSparse(OpKernelContext* ctx, const Tensor& indices, const Tensor* values, int64_t rank) {
  if (indices.shape().rank() != 2 || indices.dtype() != DT_INT64) {
    FailInvalidArgument(ctx, "indices must be an int64 matrix [N, rank], got ", DataTypeName(indices.dtype()), " ",
                        indices.shape().DebugString());
    return false;
  }
  if (indices.shape().dim(1) != rank) {
    FailInvalidArgument(ctx, "indices have ", indices.shape().dim(1), " columns but the dense shape has rank ", rank);
    return false;
  }
  if (values != nullptr && (values->shape().rank() != 1 || values->shape().dim(0) != indices.shape().dim(0))) {
    FailInvalidArgument(ctx, "values must be a vector of ", indices.shape().dim(0), " entries (one per index), got ",
                        values->shape().DebugString());
    return false;
  }
  return true;
}

// The row-major position of entry i of `indices` in a dense tensor of `dims`, or -1 with the
// status set when an index lies outside.
int64_t LinearIndex(OpKernelContext* ctx, const int64_t* index, const std::vector<int64_t>& dims, int64_t entry) {
  int64_t linear = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (index[d] < 0 || index[d] >= dims[d]) {
      FailInvalidArgument(ctx, "indices[", entry, ", ", d, "] = ", index[d], " is out of bounds for dimension ", d,
                          " of size ", dims[d]);
      return -1;
    }
    linear = linear * dims[d] + index[d];
  }
  return linear;
}

// ---- SparseReshape -----------------------------------------------------------------------------

void SparseReshapeKernel(OpKernelContext* ctx) {
  const Tensor& indices = ctx->input(0);
  auto in_dims = ReadIndexVector(ctx->input(1));
  auto wanted = ReadIndexVector(ctx->input(2));
  if (!in_dims.ok() || !wanted.ok() || ctx->input(1).shape().rank() != 1 || ctx->input(2).shape().rank() != 1)
    return FailInvalidArgument(ctx, "input_shape and new_shape must be int64 vectors");
  if (!CheckSparse(ctx, indices, nullptr, static_cast<int64_t>(in_dims->size()))) return;
  auto dense = TensorSize::NumElements(*in_dims);
  if (!dense.ok()) return ctx->SetStatus(errors::Annotate(dense.status(), "input_shape: "));
  std::vector<int64_t> out_dims = *wanted;
  int unknown = -1;
  int64_t known = 1;
  for (size_t d = 0; d < out_dims.size(); ++d) {
    if (out_dims[d] == -1) {
      if (unknown >= 0)
        return FailInvalidArgument(ctx, "only one dimension of new_shape may be -1, got ", d, " and ", unknown);
      unknown = static_cast<int>(d);
      continue;
    }
    if (out_dims[d] < 0) return FailInvalidArgument(ctx, "new_shape[", d, "] = ", out_dims[d], " is negative");
    if (__builtin_mul_overflow(known, out_dims[d], &known))
      return FailInvalidArgument(ctx, "new_shape's size overflows int64");
  }
  if (unknown >= 0) {
    if (known == 0 || *dense % known != 0)
      return FailInvalidArgument(ctx, "Input to reshape is a SparseTensor with ", *dense,
                                 " dense values, but the requested shape requires a multiple of ", known);
    out_dims[static_cast<size_t>(unknown)] = *dense / known;
  } else if (known != *dense) {
    return FailInvalidArgument(ctx, "Input to reshape is a tensor with ", *dense,
                               " dense values, but the requested shape has ", known);
  }
  const int64_t n = indices.shape().dim(0);
  const auto out_rank = static_cast<int64_t>(out_dims.size());
  Tensor* out_indices = ctx->allocate_output(0, DT_INT64, TensorShape({n, out_rank}));
  Tensor* out_shape = ctx->allocate_output(1, DT_INT64, TensorShape({out_rank}));
  if (out_indices == nullptr || out_shape == nullptr) return;
  std::copy(out_dims.begin(), out_dims.end(), out_shape->data<int64_t>());
  const int64_t in_rank = static_cast<int64_t>(in_dims->size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t linear = LinearIndex(ctx, indices.data<int64_t>() + i * in_rank, *in_dims, i);
    if (linear < 0) return;
    int64_t* o = out_indices->data<int64_t>() + i * out_rank;
    for (int64_t d = out_rank - 1; d >= 0; --d) {
      const int64_t size = out_dims[static_cast<size_t>(d)];
      o[d] = size == 0 ? 0 : linear % size;
      linear = size == 0 ? 0 : linear / size;
    }
  }
}

// ---- SparseFillEmptyRows -----------------------------------------------------------------------

void FillEmptyRowsKernel(OpKernelContext* ctx) {
  const Tensor& indices = ctx->input(0);
  const Tensor& values = ctx->input(1);
  auto dims = ReadIndexVector(ctx->input(2));
  const Tensor& default_value = ctx->input(3);
  if (!dims.ok() || dims->empty()) return FailInvalidArgument(ctx, "dense_shape must be a non-empty int64 vector");
  if (default_value.NumElements() != 1)
    return FailInvalidArgument(ctx, "default_value must be a scalar, got ", default_value.shape().DebugString());
  const auto rank = static_cast<int64_t>(dims->size());
  if (!CheckSparse(ctx, indices, &values, rank)) return;
  const int64_t rows = (*dims)[0];
  if (rows < 0) return FailInvalidArgument(ctx, "dense_shape[0] = ", rows, " is negative");
  // Two counters per row are kept below: a row count from the input is held to the task's
  // tensor limit before that memory is taken.
  if (auto room = TensorSize::ForAllocation(DT_INT64, {rows, 2}); !room.ok())
    return ctx->SetStatus(errors::Annotate(room.status(), "dense_shape[0]: "));
  const int64_t n = indices.shape().dim(0);
  const int64_t* in = indices.data<int64_t>();
  std::vector<int64_t> count(static_cast<size_t>(rows), 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t row = in[i * rank];
    if (row < 0 || row >= rows)
      return FailInvalidArgument(ctx, "indices[", i, ", 0] = ", row, " is not a row of the dense shape [0, ", rows,
                                 ")");
    ++count[static_cast<size_t>(row)];
  }
  // start[r]: where row r's entries begin in the output (an empty row takes one slot).
  std::vector<int64_t> start(static_cast<size_t>(rows) + 1, 0);
  for (int64_t r = 0; r < rows; ++r)
    start[static_cast<size_t>(r) + 1] =
        start[static_cast<size_t>(r)] + std::max<int64_t>(count[static_cast<size_t>(r)], 1);
  const int64_t total = start.back();
  Tensor* out_indices = ctx->allocate_output(0, DT_INT64, TensorShape({total, rank}));
  Tensor* out_values = ctx->allocate_output(1, values.dtype(), TensorShape({total}));
  Tensor* empty = ctx->allocate_output(2, DT_BOOL, TensorShape({rows}));
  Tensor* reverse = ctx->allocate_output(3, DT_INT64, TensorShape({n}));
  if (out_indices == nullptr || out_values == nullptr || empty == nullptr || reverse == nullptr) return;
  int64_t* oi = out_indices->data<int64_t>();
  std::vector<int64_t> filled(static_cast<size_t>(rows), 0);
  for (int64_t i = 0; i < n; ++i) {
    const auto row = static_cast<size_t>(in[i * rank]);
    const int64_t at = start[row] + filled[row]++;
    std::copy(in + i * rank, in + (i + 1) * rank, oi + at * rank);
    CopyElements(values, i, out_values, at, 1);
    reverse->data<int64_t>()[i] = at;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const bool none = count[static_cast<size_t>(r)] == 0;
    empty->data<bool>()[r] = none;
    if (!none) continue;
    const int64_t at = start[static_cast<size_t>(r)];
    std::fill(oi + at * rank, oi + (at + 1) * rank, 0);
    oi[at * rank] = r;
    CopyElements(default_value, 0, out_values, at, 1);
  }
}

template <typename T>
void FillEmptyRowsGradValues(const Tensor& reverse, const Tensor& grad, Tensor* d_values, Tensor* d_default) {
  const int64_t* map = reverse.data<int64_t>();
  const T* g = grad.data<T>();
  const int64_t n = reverse.NumElements(), m = grad.NumElements();
  std::vector<bool> used(static_cast<size_t>(m), false);
  for (int64_t i = 0; i < n; ++i) {
    d_values->data<T>()[i] = g[map[i]];
    used[static_cast<size_t>(map[i])] = true;
  }
  T sum = T(0);
  for (int64_t j = 0; j < m; ++j)
    if (!used[static_cast<size_t>(j)]) sum += g[j];
  d_default->data<T>()[0] = sum;
}

void FillEmptyRowsGradKernel(OpKernelContext* ctx) {
  const Tensor& reverse = ctx->input(0);
  const Tensor& grad = ctx->input(1);
  if (reverse.shape().rank() != 1 || grad.shape().rank() != 1)
    return FailInvalidArgument(ctx, "reverse_index_map and grad_values must be vectors");
  for (int64_t i = 0; i < reverse.NumElements(); ++i) {
    const int64_t at = reverse.data<int64_t>()[i];
    if (at < 0 || at >= grad.NumElements())
      return FailInvalidArgument(ctx, "reverse_index_map[", i, "] = ", at, " is not in [0, ", grad.NumElements(), ")");
  }
  Tensor* d_values = ctx->allocate_output(0, grad.dtype(), reverse.shape());
  Tensor* d_default = ctx->allocate_output(1, grad.dtype(), TensorShape({}));
  if (d_values == nullptr || d_default == nullptr) return;
  CLAB_SWITCH_REAL_TYPES(
      grad.dtype(), T, { FillEmptyRowsGradValues<T>(reverse, grad, d_values, d_default); },
      return FailInvalidArgument(ctx, "no gradient kernel for ", DataTypeName(grad.dtype())));
}

// ---- SparseToDense -----------------------------------------------------------------------------

StatusOr<std::unique_ptr<OpKernel>> MakeSparseToDenseKernel(OpKernelConstruction& c) {
  bool validate = true;
  CLAB_RETURN_IF_ERROR(c.GetAttr("validate_indices", &validate));
  return LambdaKernel([validate](OpKernelContext* ctx) {
    const Tensor& indices_in = ctx->input(0);
    auto dims = ReadIndexVector(ctx->input(1));
    const Tensor& values = ctx->input(2);
    const Tensor& default_value = ctx->input(3);
    if (!dims.ok() || ctx->input(1).shape().rank() > 1)
      return FailInvalidArgument(ctx, "output_shape must be an integer vector");
    if (indices_in.shape().rank() > 2)
      return FailInvalidArgument(ctx, "sparse_indices must be at most a matrix, got ",
                                 indices_in.shape().DebugString());
    if (default_value.NumElements() != 1)
      return FailInvalidArgument(ctx, "default_value must be a scalar, got ", default_value.shape().DebugString());
    auto flat = ReadIndexVector(indices_in);
    if (!flat.ok()) return FailInvalidArgument(ctx, "sparse_indices: ", flat.status().message());
    const int64_t n = indices_in.shape().rank() == 0 ? 1 : indices_in.shape().dim(0);
    const int64_t rank = indices_in.shape().rank() == 2 ? indices_in.shape().dim(1) : 1;
    if (rank != static_cast<int64_t>(dims->size()))
      return FailInvalidArgument(ctx, "sparse_indices give ", rank, " coordinates per entry, but output_shape has ",
                                 dims->size(), " dimensions");
    const bool one_value = values.NumElements() == 1 && values.shape().rank() == 0;
    if (!one_value && (values.shape().rank() != 1 || values.shape().dim(0) != n))
      return FailInvalidArgument(ctx, "sparse_values must be a scalar or a vector of ", n, " entries, got ",
                                 values.shape().DebugString());
    Tensor* out = ctx->allocate_output(0, values.dtype(), TensorShape(*dims));
    if (out == nullptr) return;
    for (int64_t i = 0, size = out->NumElements(); i < size; ++i) CopyElements(default_value, 0, out, i, 1);
    int64_t previous = -1;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t linear = LinearIndex(ctx, flat->data() + i * rank, *dims, i);
      if (linear < 0) return;
      if (validate && linear <= previous)
        return FailInvalidArgument(ctx, "indices[", i, "] is ", linear == previous ? "repeated" : "out of order",
                                   " (validate_indices requires them sorted and unique)");
      previous = linear;
      CopyElements(values, one_value ? 0 : i, out, linear, 1);
    }
  })(c);
}

Status SparseToDenseShape(ShapeContext& c) {
  if (const Tensor* shape = c.input_constant(1)) {
    auto dims = ReadIndexVector(*shape);
    if (dims.ok()) {
      c.set_output(0, PartialShape(*dims));
      return OkStatus();
    }
  }
  const PartialShape& shape = c.input_shape(1);
  if (shape.known_rank() && shape.rank() == 1 && shape.dim(0) >= 0) {
    c.set_output(0, PartialShape(std::vector<int64_t>(static_cast<size_t>(shape.dim(0)), -1)));
  } else {
    c.set_output(0, PartialShape());
  }
  return OkStatus();
}

Status ReshapeShape(ShapeContext& c) {
  const PartialShape& indices = c.input_shape(0);
  const PartialShape& wanted = c.input_shape(2);
  const int64_t n = indices.known_rank() && indices.rank() == 2 ? indices.dim(0) : -1;
  const int64_t rank = wanted.known_rank() && wanted.rank() == 1 ? wanted.dim(0) : -1;
  c.set_output(0, PartialShape({n, rank}));
  c.set_output(1, PartialShape({rank}));
  return OkStatus();
}

Status FillEmptyRowsShape(ShapeContext& c) {
  const PartialShape& indices = c.input_shape(0);
  const int64_t rank = indices.known_rank() && indices.rank() == 2 ? indices.dim(1) : -1;
  const int64_t n = indices.known_rank() && indices.rank() == 2 ? indices.dim(0) : -1;
  c.set_output(0, PartialShape({-1, rank}));
  c.set_output(1, PartialShape({-1}));
  c.set_output(2, PartialShape({-1}));
  c.set_output(3, PartialShape({n}));
  return OkStatus();
}

}  // namespace

void RegisterSparseOps(OpRegistry& registry) {
  registry.Register("SparseReshape")
      .Input("input_indices: int64")
      .Input("input_shape: int64")
      .Input("new_shape: int64")
      .Output("output_indices: int64")
      .Output("output_shape: int64")
      .SetShapeFn(ReshapeShape)
      .Kernel("CPU", LambdaKernel(SparseReshapeKernel, /*expensive=*/false))
      .Summary("A sparse tensor's entries under a new dense shape (one dimension may be -1).")
      .Group("sparse");
  registry.Register("SparseFillEmptyRows")
      .Input("indices: int64")
      .Input("values: T")
      .Input("dense_shape: int64")
      .Input("default_value: T")
      .Output("output_indices: int64")
      .Output("output_values: T")
      .Output("empty_row_indicator: bool")
      .Output("reverse_index_map: int64")
      .Attr("T: type")
      .SetShapeFn(FillEmptyRowsShape)
      .Kernel("CPU", LambdaKernel(FillEmptyRowsKernel, /*expensive=*/false))
      .Summary("Gives each row without entries one entry of default_value.")
      .Group("sparse");
  registry.Register("SparseFillEmptyRowsGrad")
      .Input("reverse_index_map: int64")
      .Input("grad_values: T")
      .Output("d_values: T")
      .Output("d_default_value: T")
      .Attr("T: type")
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, c.input_shape(0));
        c.set_output(1, PartialShape::Scalar());
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(FillEmptyRowsGradKernel, /*expensive=*/false))
      .Summary("The gradient of SparseFillEmptyRows for its values and its default value.")
      .Group("sparse");
  registry.Register("SparseToDense")
      .Input("sparse_indices: Tindices")
      .Input("output_shape: Tindices")
      .Input("sparse_values: T")
      .Input("default_value: T")
      .Output("dense: T")
      .Attr("validate_indices: bool = true")
      .Attr("T: type")
      .Attr("Tindices: {int32, int64}")
      .SetShapeFn(SparseToDenseShape)
      .Kernel("CPU", MakeSparseToDenseKernel)
      .Summary("A dense tensor of default_value with the sparse entries written in.")
      .Group("sparse");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kSparseOpFamily("sparse", RegisterSparseOps);

}  // namespace clab
