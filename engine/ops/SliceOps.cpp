// Slice and StridedSlice (Python's x[a:b:s, ..., tf.newaxis, i] on tensors), on any element
// type. StridedSlice follows TensorFlow's rules: the begin/end/strides entries form a sparse
// spec that the ellipsis expands to the input's rank (an implicit ellipsis ends a short
// spec); begin_mask/end_mask take the whole range; new_axis_mask inserts a dimension of 1;
// shrink_axis_mask takes one index and drops the dimension; indices count from the end when
// negative and are clamped to the dimension, as Python slices are. StridedSliceGrad, the
// gradient of StridedSlice, writes dy into the same strided box of a zero tensor of the
// input's shape.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/ElementCopy.h"

#include <cstring>

namespace clab::array_internal {
namespace {

// Calls visit(full, box) for every element of the strided box [begin, begin + size*stride)
// of a tensor of shape `full_dims`: `full` is its flat offset in that tensor, `box` its offset
// in the box, in row-major order.
template <typename Visit>
void WalkBox(const std::vector<int64_t>& full_dims, const std::vector<int64_t>& begin, const std::vector<int64_t>& size,
             const std::vector<int64_t>& stride, int64_t box_elements, Visit visit) {
  const size_t rank = full_dims.size();
  if (box_elements == 0) return;
  if (rank == 0) return visit(0, 0);
  std::vector<int64_t> full_strides(rank, 1);
  for (size_t d = rank - 1; d-- > 0;) full_strides[d] = full_strides[d + 1] * full_dims[d + 1];
  std::vector<int64_t> index(rank, 0);
  for (int64_t at = 0; at < box_elements; ++at) {
    int64_t full = 0;
    for (size_t d = 0; d < rank; ++d) full += (begin[d] + index[d] * stride[d]) * full_strides[d];
    visit(full, at);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < size[d]) break;
      index[d] = 0;
    }
  }
}

// Copies the strided box of `in` (per dimension) into out.
void CopyBox(const Tensor& in, const std::vector<int64_t>& begin, const std::vector<int64_t>& size,
             const std::vector<int64_t>& stride, Tensor* out) {
  WalkBox(in.shape().dims(), begin, size, stride, out->NumElements(),
          [&](int64_t full, int64_t box) { CopyElements(in, full, out, box, 1); });
}

void SliceCompute(OpKernelContext* ctx) {
  Tensor in;
  if (!ReadInput(ctx, 0, &in)) return;
  const std::vector<int64_t> begin = ReadIndexVector(ctx->input(1)).value();
  std::vector<int64_t> size = ReadIndexVector(ctx->input(2)).value();
  const int rank = in.shape().rank();
  if (static_cast<int>(begin.size()) != rank || static_cast<int>(size.size()) != rank)
    return FailInvalidArgument(ctx, "Expected begin and size arguments to be 1-D tensors of size ", rank,
                               ", but got shapes ", ctx->input(1).shape().DebugString(), " and ",
                               ctx->input(2).shape().DebugString(), " instead.");
  for (int d = 0; d < rank; ++d) {
    const int64_t dim = in.shape().dim(d);
    if (size[static_cast<size_t>(d)] == -1) size[static_cast<size_t>(d)] = dim - begin[static_cast<size_t>(d)];
    if (begin[static_cast<size_t>(d)] < 0 || size[static_cast<size_t>(d)] < 0 ||
        begin[static_cast<size_t>(d)] + size[static_cast<size_t>(d)] > dim)
      return FailInvalidArgument(ctx, "Expected begin[", d, "] in [0, ", dim, "] and size[", d, "] in [0, ",
                                 dim - begin[static_cast<size_t>(d)], "], but got ", begin[static_cast<size_t>(d)],
                                 " and ", size[static_cast<size_t>(d)]);
  }
  Tensor* out = ctx->allocate_output(0, in.dtype(), TensorShape(size));
  if (out != nullptr) CopyBox(in, begin, size, std::vector<int64_t>(static_cast<size_t>(rank), 1), out);
}

Status SliceShape(ShapeContext& c) {
  const PartialShape& in = c.input_shape(0);
  const Tensor* begin_t = c.input_constant(1);
  const Tensor* size_t_ = c.input_constant(2);
  if (!in.known_rank() || size_t_ == nullptr) {
    c.set_output(0, in.known_rank() ? PartialShape::UnknownOfRank(in.rank()) : PartialShape::Unknown());
    return OkStatus();
  }
  const StatusOr<std::vector<int64_t>> read_size = ReadIndexVector(*size_t_);
  if (!read_size.ok()) return c.MakeError(std::string(read_size.status().message()));
  std::vector<int64_t> size = *read_size;
  if (static_cast<int>(size.size()) != in.rank()) return c.MakeError("size must have one entry per dimension");
  const StatusOr<std::vector<int64_t>> read_begin =
      begin_t != nullptr ? ReadIndexVector(*begin_t) : StatusOr<std::vector<int64_t>>(std::vector<int64_t>());
  if (!read_begin.ok()) return c.MakeError(std::string(read_begin.status().message()));
  if (begin_t != nullptr && read_begin->size() != size.size())
    return c.MakeError("begin must have one entry per dimension");
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] != -1) continue;
    const int64_t begin = begin_t != nullptr ? (*read_begin)[d] : -1;
    size[d] = begin >= 0 && in.dim(static_cast<int>(d)) >= 0 ? in.dim(static_cast<int>(d)) - begin : -1;
  }
  c.set_output(0, PartialShape(std::move(size)));
  return OkStatus();
}

// ---- StridedSlice --------------------------------------------------------------------------

struct StridedPlan {
  std::vector<int64_t> begin, size, stride;  // per input dimension
  std::vector<int64_t> final_dims;           // the output's shape
};

struct Masks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

Status ReadMasks(const tensorflow::NodeDef& node, Masks* m) {
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "begin_mask", &m->begin));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "end_mask", &m->end));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "ellipsis_mask", &m->ellipsis));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "new_axis_mask", &m->new_axis));
  return GetNodeAttr(node, "shrink_axis_mask", &m->shrink);
}

// `dims` may hold -1 (unknown): the plan's sizes are then -1 there.
StatusOr<StridedPlan> PlanStridedSlice(const std::vector<int64_t>& dims, const std::vector<int64_t>& begin,
                                       const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                                       const Masks& m) {
  const int64_t n = static_cast<int64_t>(begin.size());
  if (static_cast<int64_t>(end.size()) != n || static_cast<int64_t>(strides.size()) != n)
    return errors::InvalidArgument("begin, end and strides must have the same length");
  const int64_t rank = static_cast<int64_t>(dims.size());
  bool has_ellipsis = false;
  int64_t new_axes_after_ellipsis = 0;
  for (int64_t i = 0; i < n; ++i) {
    if ((m.ellipsis >> i) & 1) {
      if (has_ellipsis) return errors::InvalidArgument("Multiple ellipses in slice spec not allowed");
      has_ellipsis = true;
    } else if (has_ellipsis && ((m.new_axis >> i) & 1)) {
      ++new_axes_after_ellipsis;
    }
  }
  StridedPlan plan;
  plan.begin.assign(static_cast<size_t>(rank), 0);
  plan.size = dims;
  plan.stride.assign(static_cast<size_t>(rank), 1);
  int64_t full = 0;                                      // the next input dimension
  const int64_t spec_length = has_ellipsis ? n : n + 1;  // an implicit ellipsis ends a short spec
  for (int64_t i = 0; i < spec_length; ++i) {
    const bool ellipsis = i == n || ((m.ellipsis >> i) & 1);
    if (ellipsis) {
      const int64_t last = i == n ? rank : std::min(rank, rank - (n - i) + 1 + new_axes_after_ellipsis);
      for (; full < last; ++full) plan.final_dims.push_back(dims[static_cast<size_t>(full)]);
      continue;
    }
    if ((m.new_axis >> i) & 1) {
      plan.final_dims.push_back(1);
      continue;
    }
    if (full >= rank) return errors::InvalidArgument("Index out of range using input dim ", full);
    const int64_t dim = dims[static_cast<size_t>(full)];
    const int64_t stride = strides[static_cast<size_t>(i)];
    if (stride == 0) return errors::InvalidArgument("strides[", i, "] must be non-zero");
    const bool shrink = (m.shrink >> i) & 1;
    int64_t b = begin[static_cast<size_t>(i)], e = end[static_cast<size_t>(i)];
    int64_t size = -1;
    if (dim >= 0) {
      if (shrink) {
        b = b < 0 ? b + dim : b;
        if (b < 0 || b >= dim)
          return errors::InvalidArgument("slice index ", begin[static_cast<size_t>(i)], " of dimension ", full,
                                         " out of bounds.");
        size = 1;
      } else {
        const int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
        auto canonical = [&](int64_t x, bool masked, bool is_begin) {
          if (masked) return (stride > 0) == is_begin ? lo : hi;
          x = x < 0 ? x + dim : x;
          return std::clamp(x, lo, hi);
        };
        b = canonical(b, (m.begin >> i) & 1, true);
        e = canonical(e, (m.end >> i) & 1, false);
        const int64_t span = stride > 0 ? e - b : b - e;
        const int64_t step = stride > 0 ? stride : -stride;
        size = span <= 0 ? 0 : (span + step - 1) / step;
      }
    }
    plan.begin[static_cast<size_t>(full)] = b;
    plan.size[static_cast<size_t>(full)] = size;
    plan.stride[static_cast<size_t>(full)] = shrink ? 1 : stride;
    if (!shrink) plan.final_dims.push_back(size);
    ++full;
  }
  return plan;
}

Status StridedSliceShape(ShapeContext& c) {
  const PartialShape& in = c.input_shape(0);
  const Tensor *b = c.input_constant(1), *e = c.input_constant(2), *s = c.input_constant(3);
  if (!in.known_rank() || b == nullptr || e == nullptr || s == nullptr) {
    c.set_output(0, PartialShape::Unknown());
    return OkStatus();
  }
  Masks m;
  CLAB_RETURN_IF_ERROR(ReadMasks(c.node(), &m));
  auto plan = PlanStridedSlice(in.dims(), ReadIndexVector(*b).value(), ReadIndexVector(*e).value(),
                               ReadIndexVector(*s).value(), m);
  if (!plan.ok()) return c.MakeError(std::string(plan.status().message()));
  c.set_output(0, PartialShape(plan->final_dims));
  return OkStatus();
}

void StridedSliceCompute(OpKernelContext* ctx) {
  Tensor in;
  if (!ReadInput(ctx, 0, &in)) return;
  Masks m;
  if (Status s = ReadMasks(ctx->node(), &m); !s.ok()) return FailInvalidArgument(ctx, s.message());
  auto plan = PlanStridedSlice(in.shape().dims(), ReadIndexVector(ctx->input(1)).value(),
                               ReadIndexVector(ctx->input(2)).value(), ReadIndexVector(ctx->input(3)).value(), m);
  if (!plan.ok()) return FailInvalidArgument(ctx, plan.status().message());
  Tensor box(in.dtype(), TensorShape(plan->size));
  CopyBox(in, plan->begin, plan->size, plan->stride, &box);
  ctx->set_output(0, box.Reshaped(TensorShape(plan->final_dims)).value());
}

// The box of CopyBox, the other way: out[begin + index * stride] = in[index].
void ScatterBox(const Tensor& in, const std::vector<int64_t>& begin, const std::vector<int64_t>& size,
                const std::vector<int64_t>& stride, Tensor* out) {
  WalkBox(out->shape().dims(), begin, size, stride, in.NumElements(),
          [&](int64_t full, int64_t box) { CopyElements(in, box, out, full, 1); });
}

// Inputs: shape (of StridedSlice's input), begin, end, strides, dy (of its output).
void StridedSliceGradCompute(OpKernelContext* ctx) {
  const Tensor& shape_tensor = ctx->input(0);
  if (shape_tensor.shape().rank() != 1)
    return FailInvalidArgument(ctx, "shape must be a vector, got shape ", shape_tensor.shape().DebugString());
  auto dims = ReadIndexVector(shape_tensor);
  if (!dims.ok()) return FailInvalidArgument(ctx, "shape: ", dims.status().message());
  auto input_shape = TensorShape::FromDims(*dims);
  if (!input_shape.ok()) return FailInvalidArgument(ctx, "shape: ", input_shape.status().message());
  Tensor dy;
  if (!ReadInput(ctx, 4, &dy)) return;
  Masks m;
  if (Status s = ReadMasks(ctx->node(), &m); !s.ok()) return FailInvalidArgument(ctx, s.message());
  auto plan = PlanStridedSlice(*dims, ReadIndexVector(ctx->input(1)).value(), ReadIndexVector(ctx->input(2)).value(),
                               ReadIndexVector(ctx->input(3)).value(), m);
  if (!plan.ok()) return FailInvalidArgument(ctx, plan.status().message());
  if (!(dy.shape() == TensorShape(plan->final_dims)))
    return FailInvalidArgument(ctx, "dy has shape ", dy.shape().DebugString(), " but the slice of ",
                               input_shape->DebugString(), " has shape ", TensorShape(plan->final_dims).DebugString());
  Tensor* out = ctx->allocate_output(0, dy.dtype(), *input_shape);
  if (out == nullptr) return;
  if (dy.dtype() == DT_STRING) {
    std::fill_n(out->data<std::string>(), out->NumElements(), std::string());
  } else {
    std::memset(out->raw_data(), 0, out->TotalBytes());
  }
  ScatterBox(dy.Reshaped(TensorShape(plan->size)).value(), plan->begin, plan->size, plan->stride, out);
}

// The value of the shape input when it is a constant, else a shape of its length.
Status StridedSliceGradShape(ShapeContext& c) {
  if (const Tensor* shape = c.input_constant(0); shape != nullptr) {
    auto dims = ReadIndexVector(*shape);
    if (!dims.ok()) return c.MakeError(std::string(dims.status().message()));
    c.set_output(0, PartialShape(*dims));
    return OkStatus();
  }
  const PartialShape& shape_of_shape = c.input_shape(0);
  if (shape_of_shape.known_rank() && shape_of_shape.rank() == 1 && shape_of_shape.dim(0) >= 0) {
    c.set_output(0, PartialShape::UnknownOfRank(static_cast<int>(shape_of_shape.dim(0))));
  } else {
    c.set_output(0, PartialShape::Unknown());
  }
  return OkStatus();
}

void RegisterSliceOps(OpRegistry& registry) {
  registry.Register("Slice")
      .Input("input: T")
      .Input("begin: Index")
      .Input("size: Index")
      .Output("output: T")
      .Attr("T: type")
      .Attr("Index: {int32, int64}")
      .SetShapeFn(SliceShape)
      .Kernel("CPU", LambdaKernel(SliceCompute))
      .Summary("The box of the given size starting at begin (size -1: to the end).")
      .Group("array");
  registry.Register("StridedSlice")
      .Input("input: T")
      .Input("begin: Index")
      .Input("end: Index")
      .Input("strides: Index")
      .Output("output: T")
      .Attr("T: type")
      .Attr("Index: {int32, int64}")
      .Attr("begin_mask: int = 0")
      .Attr("end_mask: int = 0")
      .Attr("ellipsis_mask: int = 0")
      .Attr("new_axis_mask: int = 0")
      .Attr("shrink_axis_mask: int = 0")
      .SetShapeFn(StridedSliceShape)
      .Kernel("CPU", LambdaKernel(StridedSliceCompute))
      .Summary("Python-style slicing x[b:e:s, ..., newaxis, i].")
      .Group("array");
  registry.Register("StridedSliceGrad")
      .Input("shape: Index")
      .Input("begin: Index")
      .Input("end: Index")
      .Input("strides: Index")
      .Input("dy: T")
      .Output("output: T")
      .Attr("T: type")
      .Attr("Index: {int32, int64}")
      .Attr("begin_mask: int = 0")
      .Attr("end_mask: int = 0")
      .Attr("ellipsis_mask: int = 0")
      .Attr("new_axis_mask: int = 0")
      .Attr("shrink_axis_mask: int = 0")
      .SetShapeFn(StridedSliceGradShape)
      .Kernel("CPU", LambdaKernel(StridedSliceGradCompute))
      .Summary("The gradient of StridedSlice: dy in the sliced box of zeros shaped like the input.")
      .Group("array");
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kSliceOpFamily("slice", RegisterSliceOps);

}  // namespace clab::array_internal
