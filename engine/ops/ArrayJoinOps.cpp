// Ops that join tensors or cut them apart along an axis, and Tile: Pack (tf.stack), Unpack
// (tf.unstack), ConcatV2, ConcatOffset (where each input of a concat starts, for its
// gradient), Split and Tile. All work on any element type, strings included, by copying
// contiguous runs: [outer, axis * inner] blocks, outer = the product of the dimensions
// before the axis.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/ElementCopy.h"

namespace clab::array_internal {
namespace {

// An axis in [-rank, rank) (or [-rank-1, rank] when `inserting`), made non-negative.
bool NormalizeAxis(int64_t axis, int rank, bool inserting, int64_t* out) {
  const int64_t limit = rank + (inserting ? 1 : 0);
  if (axis < -limit || axis >= limit) return false;
  *out = axis < 0 ? axis + limit : axis;
  return true;
}

// Concatenates `parts` (equal shapes except along `axis`) along `axis` into out.
void ConcatInto(const std::vector<Tensor>& parts, int64_t axis, Tensor* out) {
  const std::vector<int64_t>& out_dims = out->shape().dims();
  const int64_t outer = DimProduct(out_dims, 0, static_cast<size_t>(axis));
  int64_t at = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor& part : parts) {
      const int64_t run = DimProduct(part.shape().dims(), static_cast<size_t>(axis), part.shape().dims().size());
      CopyElements(part, o * run, out, at, run);
      at += run;
    }
}

// Cuts `in` along `axis` into pieces of the given sizes.
std::vector<Tensor> SplitAlong(const Tensor& in, int64_t axis, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> dims = in.shape().dims();
  const int64_t outer = DimProduct(dims, 0, static_cast<size_t>(axis));
  const int64_t inner = DimProduct(dims, static_cast<size_t>(axis) + 1, dims.size());
  const int64_t row = dims[static_cast<size_t>(axis)] * inner;
  std::vector<Tensor> pieces;
  int64_t offset = 0;
  for (int64_t size : sizes) {
    dims[static_cast<size_t>(axis)] = size;
    Tensor piece(in.dtype(), TensorShape(dims));
    for (int64_t o = 0; o < outer; ++o)
      CopyElements(in, o * row + offset * inner, &piece, o * size * inner, size * inner);
    offset += size;
    pieces.push_back(std::move(piece));
  }
  return pieces;
}

// ---- Pack / Unpack -------------------------------------------------------------------------

Status PackShape(ShapeContext& c) {
  PartialShape merged = c.input_shape(0);
  for (int i = 1; i < c.num_inputs(); ++i) {
    auto m = merged.MergeWith(c.input_shape(i));
    if (!m.ok()) return c.MakeError(std::string(m.status().message()));
    merged = *m;
  }
  int64_t axis = 0;
  CLAB_RETURN_IF_ERROR(c.GetAttr("axis", &axis));
  if (!merged.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return OkStatus();
  }
  int64_t at;
  if (!NormalizeAxis(axis, merged.rank(), true, &at)) return c.MakeError(clab::StrCat("axis ", axis, " out of range"));
  std::vector<int64_t> dims = merged.dims();
  dims.insert(dims.begin() + at, c.num_inputs());
  c.set_output(0, PartialShape(std::move(dims)));
  return OkStatus();
}

void PackCompute(OpKernelContext* ctx) {
  int64_t axis = 0;
  GetNodeAttr(ctx->node(), "axis", &axis).IgnoreError();
  std::vector<Tensor> parts(static_cast<size_t>(ctx->num_inputs()));
  for (int i = 0; i < ctx->num_inputs(); ++i)
    if (!ReadInput(ctx, i, &parts[static_cast<size_t>(i)])) return;
  const TensorShape first = parts[0].shape();  // a copy: the parts are reshaped below
  int64_t at;
  if (!NormalizeAxis(axis, first.rank(), true, &at)) return FailInvalidArgument(ctx, "axis ", axis, " out of range");
  std::vector<int64_t> piece_dims = first.dims();
  piece_dims.insert(piece_dims.begin() + at, 1);
  for (Tensor& part : parts) {
    if (!(part.shape() == first))
      return FailInvalidArgument(ctx, "Shapes of all inputs must match: values[0].shape = ", first.DebugString(),
                                 " != ", part.shape().DebugString());
    part = part.Reshaped(TensorShape(piece_dims)).value();
  }
  std::vector<int64_t> dims = first.dims();
  dims.insert(dims.begin() + at, ctx->num_inputs());
  Tensor* out = ctx->allocate_output(0, first.rank() >= 0 ? parts[0].dtype() : DT_INVALID, TensorShape(dims));
  if (out != nullptr) ConcatInto(parts, at, out);
}

Status UnpackShape(ShapeContext& c) {
  const PartialShape& in = c.input_shape(0);
  int64_t axis = 0;
  CLAB_RETURN_IF_ERROR(c.GetAttr("axis", &axis));
  PartialShape piece = PartialShape::Unknown();
  int64_t at;
  if (in.known_rank() && NormalizeAxis(axis, in.rank(), false, &at)) {
    std::vector<int64_t> dims = in.dims();
    dims.erase(dims.begin() + at);
    piece = PartialShape(std::move(dims));
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, piece);
  return OkStatus();
}

void UnpackCompute(OpKernelContext* ctx) {
  Tensor in;
  if (!ReadInput(ctx, 0, &in)) return;
  int64_t axis = 0;
  GetNodeAttr(ctx->node(), "axis", &axis).IgnoreError();
  int64_t at;
  if (!NormalizeAxis(axis, in.shape().rank(), false, &at))
    return FailInvalidArgument(ctx, "axis ", axis, " out of range");
  if (in.shape().dim(static_cast<int>(at)) != ctx->num_outputs())
    return FailInvalidArgument(ctx, "Input shape axis ", at, " must equal ", ctx->num_outputs(), ", got shape ",
                               in.shape().DebugString());
  std::vector<Tensor> pieces = SplitAlong(in, at, std::vector<int64_t>(static_cast<size_t>(ctx->num_outputs()), 1));
  std::vector<int64_t> dims = in.shape().dims();
  dims.erase(dims.begin() + at);
  for (int i = 0; i < ctx->num_outputs(); ++i)
    ctx->set_output(i, pieces[static_cast<size_t>(i)].Reshaped(TensorShape(dims)).value());
}

// ---- ConcatV2 / ConcatOffset / Split -------------------------------------------------------

Status ConcatShape(ShapeContext& c) {
  const int n = c.num_inputs() - 1;
  const Tensor* axis_t = c.input_constant(n);
  int rank = -1;
  for (int i = 0; i < n; ++i)
    if (c.input_shape(i).known_rank()) rank = c.input_shape(i).rank();
  if (axis_t == nullptr || rank < 0) {
    c.set_output(0, rank < 0 ? PartialShape::Unknown() : PartialShape::UnknownOfRank(rank));
    return OkStatus();
  }
  int64_t at;
  const StatusOr<int64_t> axis_value = ReadIndexScalar(*axis_t, "axis");
  if (!axis_value.ok()) return c.MakeError(std::string(axis_value.status().message()));
  const int64_t axis = *axis_value;
  if (!NormalizeAxis(axis, rank, false, &at)) return c.MakeError(clab::StrCat("axis ", axis, " out of range"));
  std::vector<int64_t> dims(static_cast<size_t>(rank), -1);
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const PartialShape& s = c.input_shape(i);
    if (!s.known_rank()) {
      total = -1;
      continue;
    }
    if (s.rank() != rank) return c.MakeError("inputs of a concat must have one rank");
    for (int d = 0; d < rank; ++d) {
      if (d == at) continue;
      if (dims[static_cast<size_t>(d)] < 0) dims[static_cast<size_t>(d)] = s.dim(d);
    }
    if (total >= 0) total = s.dim(static_cast<int>(at)) < 0 ? -1 : total + s.dim(static_cast<int>(at));
  }
  dims[static_cast<size_t>(at)] = total;
  c.set_output(0, PartialShape(std::move(dims)));
  return OkStatus();
}

void ConcatV2Compute(OpKernelContext* ctx) {
  const int n = ctx->num_inputs() - 1;
  Tensor axis_t;
  if (!ReadInput(ctx, n, &axis_t)) return;
  std::vector<Tensor> parts(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    if (!ReadInput(ctx, i, &parts[static_cast<size_t>(i)])) return;
  const int rank = parts[0].shape().rank();
  int64_t at;
  const StatusOr<int64_t> axis_value = ReadIndexScalar(axis_t, "ConcatOp : axis");
  if (!axis_value.ok()) return FailInvalidArgument(ctx, axis_value.status().message());
  const int64_t axis = *axis_value;
  if (!NormalizeAxis(axis, rank, false, &at))
    return FailInvalidArgument(ctx, "ConcatOp : Expected concatenating dimensions in the range [", -rank, ", ", rank,
                               "), but got ", axis);
  std::vector<int64_t> dims = parts[0].shape().dims();
  dims[static_cast<size_t>(at)] = 0;
  for (const Tensor& part : parts) {
    for (int d = 0; d < rank; ++d)
      if (d != at && (part.shape().rank() != rank || part.shape().dim(d) != parts[0].shape().dim(d)))
        return FailInvalidArgument(ctx, "ConcatOp : Dimensions of inputs should match: shape[0] = ",
                                   parts[0].shape().DebugString(), " vs. ", part.shape().DebugString());
    dims[static_cast<size_t>(at)] += part.shape().dim(static_cast<int>(at));
  }
  Tensor* out = ctx->allocate_output(0, parts[0].dtype(), TensorShape(dims));
  if (out != nullptr) ConcatInto(parts, at, out);
}

void ConcatOffsetCompute(OpKernelContext* ctx) {
  const StatusOr<int64_t> axis_value = ReadIndexScalar(ctx->input(0), "ConcatOffset's axis");
  if (!axis_value.ok()) return FailInvalidArgument(ctx, axis_value.status().message());
  const int64_t axis = *axis_value;
  const int n = ctx->num_inputs() - 1;
  const int64_t rank = ctx->input(1).NumElements();
  int64_t at;
  if (!NormalizeAxis(axis, static_cast<int>(rank), false, &at))
    return FailInvalidArgument(ctx, "axis ", axis, " out of range");
  int64_t offset = 0;
  for (int i = 0; i < n; ++i) {
    const StatusOr<std::vector<int64_t>> read = ReadIndexVector(ctx->input(i + 1));
    if (!read.ok()) return FailInvalidArgument(ctx, "ConcatOffset's shape ", i, ": ", read.status().message());
    const std::vector<int64_t>& shape = *read;
    if (static_cast<int64_t>(shape.size()) != rank)
      return FailInvalidArgument(ctx, "ConcatOffset's shape ", i, " has ", shape.size(), " entries, shape 0 has ",
                                 rank);
    std::vector<int64_t> start(static_cast<size_t>(rank), 0);
    start[static_cast<size_t>(at)] = offset;
    offset += shape[static_cast<size_t>(at)];
    ctx->set_output(i, IndexTensor(ctx->input(i + 1).dtype(), start, TensorShape({rank})));
  }
}

void SplitCompute(OpKernelContext* ctx) {
  const StatusOr<int64_t> axis_value = ReadIndexScalar(ctx->input(0), "Split's axis");
  if (!axis_value.ok()) return FailInvalidArgument(ctx, axis_value.status().message());
  const int64_t axis = *axis_value;
  Tensor in;
  if (!ReadInput(ctx, 1, &in)) return;
  int64_t at;
  if (!NormalizeAxis(axis, in.shape().rank(), false, &at))
    return FailInvalidArgument(ctx, "axis ", axis, " out of range");
  const int64_t n = ctx->num_outputs();
  const int64_t size = in.shape().dim(static_cast<int>(at));
  if (size % n != 0)
    return FailInvalidArgument(ctx,
                               "Number of ways to split should evenly divide the split dimension, but got split_dim ",
                               at, " (size = ", size, ") and num_split ", n);
  std::vector<Tensor> pieces = SplitAlong(in, at, std::vector<int64_t>(static_cast<size_t>(n), size / n));
  for (int i = 0; i < n; ++i) ctx->set_output(i, std::move(pieces[static_cast<size_t>(i)]));
}

Status SplitShape(ShapeContext& c) {
  const PartialShape& in = c.input_shape(1);
  const Tensor* axis_t = c.input_constant(0);
  PartialShape piece = in.known_rank() ? PartialShape::UnknownOfRank(in.rank()) : PartialShape::Unknown();
  int64_t at;
  const StatusOr<int64_t> axis_value =
      axis_t != nullptr ? ReadIndexScalar(*axis_t, "Split's axis") : StatusOr<int64_t>(int64_t{0});
  if (!axis_value.ok()) return c.MakeError(std::string(axis_value.status().message()));
  if (axis_t != nullptr && in.known_rank() && NormalizeAxis(*axis_value, in.rank(), false, &at)) {
    std::vector<int64_t> dims = in.dims();
    dims[static_cast<size_t>(at)] =
        dims[static_cast<size_t>(at)] < 0 ? -1 : dims[static_cast<size_t>(at)] / c.num_outputs();
    piece = PartialShape(std::move(dims));
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, piece);
  return OkStatus();
}

// ---- Tile ----------------------------------------------------------------------------------

Status TileShape(ShapeContext& c) {
  const PartialShape& in = c.input_shape(0);
  const Tensor* multiples = c.input_constant(1);
  if (!in.known_rank() || multiples == nullptr) {
    c.set_output(0, in.known_rank() ? PartialShape::UnknownOfRank(in.rank()) : PartialShape::Unknown());
    return OkStatus();
  }
  std::vector<int64_t> m = ReadIndexVector(*multiples).value();
  if (static_cast<int>(m.size()) != in.rank()) return c.MakeError("multiples must have one entry per dimension");
  std::vector<int64_t> dims = in.dims();
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = dims[i] < 0 ? -1 : dims[i] * m[i];
  c.set_output(0, PartialShape(std::move(dims)));
  return OkStatus();
}

void TileCompute(OpKernelContext* ctx) {
  Tensor in, multiples_t;
  if (!ReadInput(ctx, 0, &in) || !ReadInput(ctx, 1, &multiples_t)) return;
  std::vector<int64_t> m = ReadIndexVector(multiples_t).value();
  const std::vector<int64_t>& in_dims = in.shape().dims();
  if (m.size() != in_dims.size())
    return FailInvalidArgument(ctx, "Expected multiples argument to be a vector of length ", in_dims.size(),
                               " but got length ", m.size());
  std::vector<int64_t> out_dims(in_dims.size());
  for (size_t i = 0; i < m.size(); ++i) {
    if (m[i] < 0) return FailInvalidArgument(ctx, "Expected multiples[", i, "] >= 0, but got ", m[i]);
    out_dims[i] = in_dims[i] * m[i];
  }
  Tensor* out = ctx->allocate_output(0, in.dtype(), TensorShape(out_dims));
  if (out == nullptr || out->NumElements() == 0) return;
  // Walk the output in order, one innermost run of the input at a time.
  const size_t rank = in_dims.size();
  if (rank == 0) return CopyElements(in, 0, out, 0, 1);
  const int64_t inner = in_dims.back();
  std::vector<int64_t> index(rank, 0);  // output index of the current run's start
  for (int64_t at = 0; at < out->NumElements(); at += inner) {
    int64_t src = 0;
    for (size_t d = 0; d + 1 < rank; ++d) src = src * in_dims[d] + index[d] % in_dims[d];
    CopyElements(in, src * inner, out, at, inner);
    index[rank - 1] += inner;
    for (size_t d = rank; d-- > 0;) {
      if (index[d] < out_dims[d] || d == 0) break;
      index[d] = 0;
      ++index[d - 1];
    }
  }
}

void RegisterArrayJoinOps(OpRegistry& registry) {
  registry.Register("Pack")
      .Input("values: N * T")
      .Output("output: T")
      .Attr("N: int >= 1")
      .Attr("T: type")
      .Attr("axis: int = 0")
      .SetShapeFn(PackShape)
      .Kernel("CPU", LambdaKernel(PackCompute))
      .Summary("Stacks N tensors of one shape along a new axis (tf.stack).")
      .Group("array");
  registry.Register("Unpack")
      .Input("value: T")
      .Output("output: num * T")
      .Attr("num: int >= 0")
      .Attr("T: type")
      .Attr("axis: int = 0")
      .SetShapeFn(UnpackShape)
      .Kernel("CPU", LambdaKernel(UnpackCompute))
      .Summary("Cuts a tensor into its slices along an axis (tf.unstack).")
      .Group("array");
  registry.Register("ConcatV2")
      .Input("values: N * T")
      .Input("axis: Tidx")
      .Output("output: T")
      .Attr("N: int >= 2")
      .Attr("T: type")
      .Attr("Tidx: {int32, int64} = DT_INT32")
      .SetShapeFn(ConcatShape)
      .Kernel("CPU", LambdaKernel(ConcatV2Compute))
      .Summary("Joins tensors along an existing axis.")
      .Group("array");
  registry.Register("ConcatOffset")
      .Input("concat_dim: int32")
      .Input("shape: N * int32")
      .Output("offset: N * int32")
      .Attr("N: int >= 2")
      .SetShapeFn([](ShapeContext& c) {
        for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, c.input_shape(i + 1));
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(ConcatOffsetCompute, /*expensive=*/false))
      .Summary("Where each input of a concat starts in its output (for the concat's gradient).")
      .Group("array");
  registry.Register("Split")
      .Input("split_dim: int32")
      .Input("value: T")
      .Output("output: num_split * T")
      .Attr("num_split: int >= 1")
      .Attr("T: type")
      .SetShapeFn(SplitShape)
      .Kernel("CPU", LambdaKernel(SplitCompute))
      .Summary("Cuts a tensor into num_split equal pieces along an axis.")
      .Group("array");
  registry.Register("Tile")
      .Input("input: T")
      .Input("multiples: Tmultiples")
      .Output("output: T")
      .Attr("T: type")
      .Attr("Tmultiples: {int32, int64} = DT_INT32")
      .SetShapeFn(TileShape)
      .Kernel("CPU", LambdaKernel(TileCompute))
      .Summary("Repeats a tensor multiples[i] times along each dimension i.")
      .Group("array");
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kArrayJoinOpFamily("array join", RegisterArrayJoinOps);

}  // namespace clab::array_internal
