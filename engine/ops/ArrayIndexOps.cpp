// Ops that place elements by index: OneHot, Pad (constant padding), DynamicStitch (merges
// the pieces DynamicPartition or a gradient scattered, by their indices) and ReverseV2.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/ElementCopy.h"

#include <absl/strings/str_join.h>

namespace clab::array_internal {
namespace {

void OneHotCompute(OpKernelContext* ctx) {
  const Tensor& indices = ctx->input(0);
  const StatusOr<int64_t> depth_value = ReadIndexScalar(ctx->input(1), "OneHot's depth");
  if (!depth_value.ok()) return FailInvalidArgument(ctx, depth_value.status().message());
  const int64_t depth = *depth_value;
  const Tensor& on = ctx->input(2);
  const Tensor& off = ctx->input(3);
  int64_t axis = -1;
  GetNodeAttr(ctx->node(), "axis", &axis).IgnoreError();
  const int rank = indices.shape().rank();
  if (axis < -1 || axis > rank) return FailInvalidArgument(ctx, "Expected axis to be -1 or between [0, ", rank, "]");
  if (depth < 0) return FailInvalidArgument(ctx, "depth must be non-negative, got: ", depth);
  const int64_t at = axis == -1 ? rank : axis;
  std::vector<int64_t> dims = indices.shape().dims();
  dims.insert(dims.begin() + at, depth);
  Tensor* out = ctx->allocate_output(0, on.dtype(), TensorShape(dims));
  if (out == nullptr) return;
  const std::vector<int64_t> index = ReadIndexVector(indices).value();
  const int64_t outer = DimProduct(indices.shape().dims(), 0, static_cast<size_t>(at));
  const int64_t inner = DimProduct(indices.shape().dims(), static_cast<size_t>(at), static_cast<size_t>(rank));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t d = 0; d < depth; ++d)
      for (int64_t i = 0; i < inner; ++i) {
        const bool hot = index[static_cast<size_t>(o * inner + i)] == d;  // out-of-range indices: all off
        CopyElements(hot ? on : off, 0, out, (o * depth + d) * inner + i, 1);
      }
}

Status OneHotShape(ShapeContext& c) {
  const PartialShape& in = c.input_shape(0);
  int64_t axis = -1;
  CLAB_RETURN_IF_ERROR(c.GetAttr("axis", &axis));
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return OkStatus();
  }
  const Tensor* depth = c.input_constant(1);
  std::vector<int64_t> dims = in.dims();
  const int64_t at = axis == -1 ? in.rank() : std::min<int64_t>(axis, in.rank());
  const StatusOr<int64_t> depth_value =
      depth != nullptr ? ReadIndexScalar(*depth, "OneHot's depth") : StatusOr<int64_t>(int64_t{-1});
  if (!depth_value.ok()) return c.MakeError(std::string(depth_value.status().message()));
  dims.insert(dims.begin() + at, *depth_value);
  c.set_output(0, PartialShape(std::move(dims)));
  return OkStatus();
}

void PadCompute(OpKernelContext* ctx) {
  Tensor in;
  if (!ReadInput(ctx, 0, &in)) return;
  const std::vector<int64_t> pads = ReadIndexVector(ctx->input(1)).value();
  const int rank = in.shape().rank();
  if (static_cast<int>(pads.size()) != 2 * rank)
    return FailInvalidArgument(ctx, "The first dimension of paddings must be the rank of inputs: ", pads.size() / 2,
                               " ", in.shape().DebugString());
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    if (pads[2 * d] < 0 || pads[2 * d + 1] < 0) return FailInvalidArgument(ctx, "Paddings must be non-negative");
    dims[static_cast<size_t>(d)] = in.shape().dim(d) + pads[2 * d] + pads[2 * d + 1];
  }
  Tensor* out = ctx->allocate_output(0, in.dtype(), TensorShape(dims));
  if (out == nullptr) return;
  Tensor zero(in.dtype(), TensorShape{});  // zero-filled
  if (ctx->num_inputs() > 2) zero = ctx->input(2);
  for (int64_t k = 0, k_end = out->NumElements(); k < k_end; ++k) CopyElements(zero, 0, out, k, 1);
  // Copy each input element to its padded position.
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t k = 0, k_end = in.NumElements(); k < k_end; ++k) {
    int64_t target = 0;
    for (int d = 0; d < rank; ++d)
      target = target * dims[static_cast<size_t>(d)] + index[static_cast<size_t>(d)] + pads[2 * d];
    CopyElements(in, k, out, target, 1);
    for (int d = rank; d-- > 0;) {
      if (++index[static_cast<size_t>(d)] < in.shape().dim(d)) break;
      index[static_cast<size_t>(d)] = 0;
    }
  }
}

Status PadShape(ShapeContext& c) {
  const PartialShape& in = c.input_shape(0);
  const Tensor* pads = c.input_constant(1);
  if (!in.known_rank() || pads == nullptr) {
    c.set_output(0, in.known_rank() ? PartialShape::UnknownOfRank(in.rank()) : PartialShape::Unknown());
    return OkStatus();
  }
  const std::vector<int64_t> p = ReadIndexVector(*pads).value();
  if (static_cast<int>(p.size()) != 2 * in.rank()) return c.MakeError("paddings must be [rank, 2]");
  std::vector<int64_t> dims = in.dims();
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = dims[d] < 0 ? -1 : dims[d] + p[2 * d] + p[2 * d + 1];
  c.set_output(0, PartialShape(std::move(dims)));
  return OkStatus();
}

void DynamicStitchCompute(OpKernelContext* ctx) {
  const int n = ctx->num_inputs() / 2;
  int64_t max_index = -1;
  for (int i = 0; i < n; ++i) {
    // Held in a named vector: a range-for over ReadIndexVector(...).value() would iterate a
    // vector destroyed with its temporary StatusOr.
    const std::vector<int64_t> index = ReadIndexVector(ctx->input(i)).value();
    for (int64_t v : index) max_index = std::max(max_index, v);
  }
  const Tensor& first_data = ctx->input(n);
  const int index_rank = ctx->input(0).shape().rank();
  // data[i] must have indices[i]'s shape followed by one slice shape shared by all.
  if (first_data.shape().rank() < index_rank)
    return FailInvalidArgument(ctx, "data[0] of shape ", first_data.shape().DebugString(),
                               " does not start with the shape of indices[0], ", ctx->input(0).shape().DebugString());
  std::vector<int64_t> slice_dims(first_data.shape().dims().begin() + index_rank, first_data.shape().dims().end());
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> expected = ctx->input(i).shape().dims();
    expected.insert(expected.end(), slice_dims.begin(), slice_dims.end());
    if (ctx->input(n + i).shape().dims() != expected)
      return FailInvalidArgument(ctx, "data[", i, "] has shape ", ctx->input(n + i).shape().DebugString(), ", indices[",
                                 i, "] ", ctx->input(i).shape().DebugString(), ": expected [",
                                 absl::StrJoin(expected, ","), "]");
  }
  const int64_t slice = DimProduct(slice_dims, 0, slice_dims.size());
  // The output has max_index + 1 rows; an index that would need more memory than any
  // stitched gradient is refused rather than allocated.
  constexpr int64_t kMaxElements = int64_t{1} << 31;
  if (max_index >= kMaxElements / std::max<int64_t>(slice, 1))
    return FailInvalidArgument(ctx, "index ", max_index, " would make an output of more than ", kMaxElements,
                               " elements");
  std::vector<int64_t> dims = {max_index + 1};
  dims.insert(dims.end(), slice_dims.begin(), slice_dims.end());
  Tensor* out = ctx->allocate_output(0, first_data.dtype(), TensorShape(dims));
  if (out == nullptr) return;
  for (int i = 0; i < n; ++i) {  // later pieces win, as TensorFlow's merge order says
    const std::vector<int64_t> index = ReadIndexVector(ctx->input(i)).value();
    const Tensor& data = ctx->input(n + i);
    if (data.NumElements() != static_cast<int64_t>(index.size()) * slice)
      return FailInvalidArgument(ctx, "data[", i, "] does not match indices[", i, "]'s shape");
    for (size_t k = 0; k < index.size(); ++k) {
      if (index[k] < 0) return FailInvalidArgument(ctx, "indices[", i, "] holds the negative index ", index[k]);
      CopyElements(data, static_cast<int64_t>(k) * slice, out, index[k] * slice, slice);
    }
  }
}

void ReverseV2Compute(OpKernelContext* ctx) {
  Tensor in;
  if (!ReadInput(ctx, 0, &in)) return;
  const int rank = in.shape().rank();
  std::vector<bool> flip(static_cast<size_t>(rank), false);
  const std::vector<int64_t> axes = ReadIndexVector(ctx->input(1)).value();
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) return FailInvalidArgument(ctx, "axis ", axis, " is out of range");
    flip[static_cast<size_t>(axis < 0 ? axis + rank : axis)] = true;
  }
  Tensor* out = ctx->allocate_output(0, in.dtype(), in.shape());
  if (out == nullptr) return;
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t k = 0, k_end = in.NumElements(); k < k_end; ++k) {
    int64_t target = 0;
    for (int d = 0; d < rank; ++d) {
      const int64_t i = index[static_cast<size_t>(d)];
      target = target * in.shape().dim(d) + (flip[static_cast<size_t>(d)] ? in.shape().dim(d) - 1 - i : i);
    }
    CopyElements(in, k, out, target, 1);
    for (int d = rank; d-- > 0;) {
      if (++index[static_cast<size_t>(d)] < in.shape().dim(d)) break;
      index[static_cast<size_t>(d)] = 0;
    }
  }
}

Status SameShape(ShapeContext& c) {
  c.set_output(0, c.input_shape(0));
  return OkStatus();
}

void RegisterArrayIndexOps(OpRegistry& registry) {
  registry.Register("OneHot")
      .Input("indices: TI")
      .Input("depth: int32")
      .Input("on_value: T")
      .Input("off_value: T")
      .Output("output: T")
      .Attr("axis: int = -1")
      .Attr("T: type")
      .Attr("TI: {int32, int64} = DT_INT64")
      .SetShapeFn(OneHotShape)
      .Kernel("CPU", LambdaKernel(OneHotCompute))
      .Summary("on_value where the index equals the position along a new axis of size depth, else off_value.")
      .Group("array");
  for (const char* name : {"Pad", "PadV2"}) {
    OpDefBuilder op = registry.Register(name);
    op.Input("input: T").Input("paddings: Tpaddings");
    if (std::string_view(name) == "PadV2") op.Input("constant_values: T");
    op.Output("output: T")
        .Attr("T: type")
        .Attr("Tpaddings: {int32, int64} = DT_INT32")
        .SetShapeFn(PadShape)
        .Kernel("CPU", LambdaKernel(PadCompute))
        .Summary("The input with paddings[d] = [before, after] elements added around each dimension d.")
        .Group("array");
  }
  registry.Register("DynamicStitch")
      .Input("indices: N * int32")
      .Input("data: N * T")
      .Output("merged: T")
      .Attr("N: int >= 1")
      .Attr("T: type")
      .Kernel("CPU", LambdaKernel(DynamicStitchCompute))
      .Summary("merged[indices[i][k]] = data[i][k]: interleaves pieces by their indices.")
      .Group("array");
  registry.Register("ReverseV2")
      .Input("tensor: T")
      .Input("axis: Tidx")
      .Output("output: T")
      .Attr("Tidx: {int32, int64} = DT_INT32")
      .Attr("T: type")
      .SetShapeFn(SameShape)
      .Kernel("CPU", LambdaKernel(ReverseV2Compute))
      .Summary("The tensor with the order of the given axes reversed.")
      .Group("array");
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kArrayIndexOpFamily("array index", RegisterArrayIndexOps);

}  // namespace clab::array_internal
