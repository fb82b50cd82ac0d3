// GatherNd and its way back, ScatterNd. indices [..., K] address slices of params by their
// first K coordinates:
//   GatherNd:  output[i...] = params[indices[i..., 0], ..., indices[i..., K-1], :]
//   ScatterNd: a zero tensor of `shape` with each update added at its index (repeats sum).
// Output shape: indices.shape[:-1] + params.shape[K:]. An index outside params is
// INVALID_ARGUMENT naming it (TensorFlow's CPU kernel does the same).
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

// The slices' positions (in units of `slice` elements) in a tensor of `dims`, or false with
// the status set. `count` index rows of `depth` coordinates each.
bool SlicePositions(OpKernelContext* ctx, const std::vector<int64_t>& flat, int64_t count, int64_t depth,
                    const std::vector<int64_t>& dims, std::vector<int64_t>* positions) {
  positions->resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    int64_t at = 0;
    for (int64_t d = 0; d < depth; ++d) {
      const int64_t index = flat[static_cast<size_t>(i * depth + d)];
      const int64_t size = dims[static_cast<size_t>(d)];
      if (index < 0 || index >= size) {
        FailInvalidArgument(ctx, "indices[", i, ", ", d, "] = ", index, " does not index into dimension ", d,
                            " of size ", size);
        return false;
      }
      at = at * size + index;
    }
    (*positions)[static_cast<size_t>(i)] = at;
  }
  return true;
}

int64_t Product(const std::vector<int64_t>& dims, size_t from) {
  int64_t n = 1;
  for (size_t i = from; i < dims.size(); ++i) n *= dims[i];
  return n;
}

void GatherNdKernel(OpKernelContext* ctx) {
  const Tensor& params = ctx->input(0);
  const Tensor& indices = ctx->input(1);
  auto flat = ReadIndexVector(indices);
  if (!flat.ok()) return FailInvalidArgument(ctx, "indices must be int32 or int64");
  if (indices.shape().rank() < 1) return FailInvalidArgument(ctx, "indices must be at least a vector");
  const int64_t depth = indices.shape().dims().back();
  const std::vector<int64_t>& dims = params.shape().dims();
  if (depth > static_cast<int64_t>(dims.size()))
    return FailInvalidArgument(ctx, "indices' last dimension ", depth, " is more than params' rank ", dims.size());
  std::vector<int64_t> out_dims(indices.shape().dims().begin(), indices.shape().dims().end() - 1);
  const int64_t count = Product(out_dims, 0);
  out_dims.insert(out_dims.end(), dims.begin() + depth, dims.end());
  std::vector<int64_t> positions;
  if (depth > 0 && !SlicePositions(ctx, *flat, count, depth, dims, &positions)) return;
  Tensor* out = ctx->allocate_output(0, params.dtype(), TensorShape(out_dims));
  if (out == nullptr) return;
  const int64_t slice = Product(dims, static_cast<size_t>(depth));
  // depth 0: every index row takes the whole of params (count is bounded by the output's
  // allocation, which succeeded).
  for (int64_t i = 0; slice > 0 && i < count; ++i)
    CopyElements(params, depth == 0 ? 0 : positions[static_cast<size_t>(i)] * slice, out, i * slice, slice);
}

template <typename T>
void AddSlices(const Tensor& updates, const std::vector<int64_t>& positions, int64_t slice, Tensor* out) {
  T* o = out->data<T>();
  std::fill(o, o + out->NumElements(), T(0));
  const T* u = updates.data<T>();
  for (size_t i = 0; i < positions.size(); ++i)
    for (int64_t j = 0; j < slice; ++j) o[positions[i] * slice + j] += u[static_cast<int64_t>(i) * slice + j];
}

void ScatterNdKernel(OpKernelContext* ctx) {
  const Tensor& indices = ctx->input(0);
  const Tensor& updates = ctx->input(1);
  auto flat = ReadIndexVector(indices);
  auto dims = ReadIndexVector(ctx->input(2));
  if (!flat.ok() || !dims.ok()) return FailInvalidArgument(ctx, "indices and shape must be int32 or int64");
  if (indices.shape().rank() < 1) return FailInvalidArgument(ctx, "indices must be at least a vector");
  const int64_t depth = indices.shape().dims().back();
  if (depth < 1 || depth > static_cast<int64_t>(dims->size()))
    return FailInvalidArgument(ctx, "indices' last dimension ", depth, " must be in [1, ", dims->size(), "]");
  std::vector<int64_t> expected(indices.shape().dims().begin(), indices.shape().dims().end() - 1);
  const int64_t count = Product(expected, 0);
  expected.insert(expected.end(), dims->begin() + depth, dims->end());
  if (!(updates.shape() == TensorShape(expected)))
    return FailInvalidArgument(ctx, "updates must have shape ", TensorShape(expected).DebugString(), ", got ",
                               updates.shape().DebugString());
  std::vector<int64_t> positions;
  if (!SlicePositions(ctx, *flat, count, depth, *dims, &positions)) return;
  Tensor* out = ctx->allocate_output(0, updates.dtype(), TensorShape(*dims));
  if (out == nullptr) return;
  const int64_t slice = Product(*dims, static_cast<size_t>(depth));
  CLAB_SWITCH_REAL_TYPES(
      updates.dtype(), T, { AddSlices<T>(updates, positions, slice, out); },
      return FailInvalidArgument(ctx, "no kernel for ", DataTypeName(updates.dtype())));
}

Status GatherNdShape(ShapeContext& c) {
  const PartialShape& params = c.input_shape(0);
  const PartialShape& indices = c.input_shape(1);
  if (!params.known_rank() || !indices.known_rank() || indices.rank() < 1 || indices.dims().back() < 0) {
    c.set_output(0, PartialShape());
    return OkStatus();
  }
  const int64_t depth = indices.dims().back();
  if (depth > params.rank())
    return c.MakeError(StrCat("indices' last dimension ", depth, " is more than params' rank ", params.rank()));
  std::vector<int64_t> dims(indices.dims().begin(), indices.dims().end() - 1);
  dims.insert(dims.end(), params.dims().begin() + depth, params.dims().end());
  c.set_output(0, PartialShape(dims));
  return OkStatus();
}

Status ScatterNdShape(ShapeContext& c) {
  if (const Tensor* shape = c.input_constant(2)) {
    auto dims = ReadIndexVector(*shape);
    if (dims.ok()) {
      c.set_output(0, PartialShape(*dims));
      return OkStatus();
    }
  }
  c.set_output(0, PartialShape());
  return OkStatus();
}

}  // namespace

void RegisterGatherNdOps(OpRegistry& registry) {
  registry.Register("GatherNd")
      .Input("params: Tparams")
      .Input("indices: Tindices")
      .Output("output: Tparams")
      .Attr("Tparams: type")
      .Attr("Tindices: {int32, int64}")
      .SetShapeFn(GatherNdShape)
      .Kernel("CPU", LambdaKernel(GatherNdKernel))
      .Summary("Slices of params addressed by the last dimension of indices.")
      .Group("array");
  registry.Register("ScatterNd")
      .Input("indices: Tindices")
      .Input("updates: T")
      .Input("shape: Tindices")
      .Output("output: T")
      .Attr("T: type")
      .Attr("Tindices: {int32, int64}")
      .SetShapeFn(ScatterNdShape)
      .Kernel("CPU", LambdaKernel(ScatterNdKernel))
      .Summary("A zero tensor of the given shape with the updates added at their indices.")
      .Group("array");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kGatherNdOpFamily("gather nd", RegisterGatherNdOps);

}  // namespace clab
