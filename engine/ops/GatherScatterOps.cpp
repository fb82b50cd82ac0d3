// Rows by index, and their way back: GatherV2 / Gather (embedding lookup), UnsortedSegmentSum
// (sums rows into segments: the dense form of a sparse gradient), and ScatterAdd, ScatterSub
// and ScatterUpdate, which change only the given rows of a variable, so a sparse gradient
// (indices + values) updates an embedding on its ps without a dense tensor ever travelling.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"

#include <cstring>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;
using array_internal::InputNodeName;
using array_internal::OnlyVariableHolds;
using array_internal::ReadIndexVector;
using array_internal::UninitializedError;

int64_t Product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to; ++i) n *= dims[i];
  return n;
}

// Index values of any integer tensor, flattened.
StatusOr<std::vector<int64_t>> FlatIndices(const Tensor& indices) {
  if (indices.dtype() != DT_INT32 && indices.dtype() != DT_INT64)
    return errors::InvalidArgument("indices must be int32 or int64, got ", DataTypeName(indices.dtype()));
  std::vector<int64_t> flat(static_cast<size_t>(indices.NumElements()));
  for (size_t k = 0; k < flat.size(); ++k)
    flat[k] = indices.dtype() == DT_INT32 ? indices.data<int32_t>()[k] : indices.data<int64_t>()[k];
  return flat;
}

// ---- Gather ------------------------------------------------------------------------------------

void GatherCompute(OpKernelContext* ctx, int64_t axis) {
  const Tensor& params = ctx->input(0);
  if (params.dtype() == DT_STRING) return FailInvalidArgument(ctx, "Gather of strings is not supported");
  const auto& dims = params.shape().dims();
  const int rank = static_cast<int>(dims.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    return FailInvalidArgument(ctx, "Expected axis in the range [", -rank, ", ", rank, "), but got ", axis,
                               " (params has shape ", params.shape().DebugString(), ")");
  auto indices = FlatIndices(ctx->input(1));
  if (!indices.ok()) return ctx->SetStatus(errors::Annotate(indices.status(), "Gather: "));
  const int64_t outer = Product(dims, 0, static_cast<size_t>(axis));
  const int64_t limit = dims[static_cast<size_t>(axis)];
  const size_t inner_bytes =
      static_cast<size_t>(Product(dims, static_cast<size_t>(axis) + 1, dims.size())) * DataTypeSize(params.dtype());
  std::vector<int64_t> out_dims(dims.begin(), dims.begin() + axis);
  for (int64_t d : ctx->input(1).shape().dims()) out_dims.push_back(d);
  out_dims.insert(out_dims.end(), dims.begin() + axis + 1, dims.end());
  for (size_t k = 0; k < indices->size(); ++k) {
    const int64_t index = (*indices)[k];
    if (index < 0 || index >= limit)
      return FailInvalidArgument(ctx, "indices[", k, "] = ", index, " is not in [0, ", limit, ")");
  }
  Tensor* out = ctx->allocate_output(0, params.dtype(), TensorShape(out_dims));
  if (out == nullptr) return;
  const char* in = static_cast<const char*>(params.raw_data());
  char* o = static_cast<char*>(out->raw_data());
  const size_t count = indices->size();
  for (int64_t a = 0; a < outer; ++a)
    for (size_t k = 0; k < count; ++k)
      std::memcpy(o + (static_cast<size_t>(a) * count + k) * inner_bytes,
                  in + (static_cast<size_t>(a * limit + (*indices)[k])) * inner_bytes, inner_bytes);
}

void GatherV2Kernel(OpKernelContext* ctx) {
  auto axis = ReadIndexVector(ctx->input(2));
  if (!axis.ok() || axis->size() != 1) return FailInvalidArgument(ctx, "axis must be an int32 or int64 scalar");
  GatherCompute(ctx, (*axis)[0]);
}

Status GatherShape(ShapeContext& c, int64_t axis, bool axis_known) {
  const PartialShape& params = c.input_shape(0);
  const PartialShape& indices = c.input_shape(1);
  if (!params.known_rank() || !indices.known_rank() || !axis_known) {
    c.set_output(0, PartialShape());
    return OkStatus();
  }
  if (axis < 0) axis += params.rank();
  if (axis < 0 || axis >= params.rank())
    return c.MakeError(StrCat("axis ", axis, " is out of range for params of rank ", params.rank()));
  std::vector<int64_t> dims(params.dims().begin(), params.dims().begin() + axis);
  dims.insert(dims.end(), indices.dims().begin(), indices.dims().end());
  dims.insert(dims.end(), params.dims().begin() + axis + 1, params.dims().end());
  c.set_output(0, PartialShape(dims));
  return OkStatus();
}

Status GatherV2Shape(ShapeContext& c) {
  const Tensor* axis = c.input_constant(2);
  if (axis == nullptr) return GatherShape(c, 0, false);
  auto values = ReadIndexVector(*axis);
  if (!values.ok() || values->size() != 1) return c.MakeError("axis must be a scalar");
  return GatherShape(c, (*values)[0], true);
}

// ---- UnsortedSegmentSum --------------------------------------------------------------------------

template <typename T>
void SegmentSum(const Tensor& data, const std::vector<int64_t>& ids, int64_t inner, Tensor* out) {
  T* o = out->data<T>();
  std::fill(o, o + out->NumElements(), T(0));
  const T* in = data.data<T>();
  for (size_t k = 0; k < ids.size(); ++k) {
    if (ids[k] < 0) continue;  // TensorFlow drops negative ids
    T* row = o + ids[k] * inner;
    const T* from = in + static_cast<int64_t>(k) * inner;
    for (int64_t j = 0; j < inner; ++j) row[j] += from[j];
  }
}

void UnsortedSegmentSumKernel(OpKernelContext* ctx) {
  const Tensor& data = ctx->input(0);
  const Tensor& segment_ids = ctx->input(1);
  auto ids = FlatIndices(segment_ids);
  auto num = ReadIndexVector(ctx->input(2));
  if (!ids.ok()) return ctx->SetStatus(errors::Annotate(ids.status(), "segment_ids: "));
  if (!num.ok() || num->size() != 1) return FailInvalidArgument(ctx, "num_segments must be an integer scalar");
  const int64_t segments = (*num)[0];
  const auto& dims = data.shape().dims();
  const size_t id_rank = segment_ids.shape().dims().size();
  if (dims.size() < id_rank ||
      !std::equal(segment_ids.shape().dims().begin(), segment_ids.shape().dims().end(), dims.begin()))
    return FailInvalidArgument(ctx, "segment_ids.shape ", segment_ids.shape().DebugString(),
                               " must be a prefix of data.shape ", data.shape().DebugString());
  for (size_t k = 0; k < ids->size(); ++k)
    if ((*ids)[k] >= segments)
      return FailInvalidArgument(ctx, "segment_ids[", k, "] = ", (*ids)[k], " is out of range [0, ", segments, ")");
  std::vector<int64_t> out_dims{segments};
  out_dims.insert(out_dims.end(), dims.begin() + static_cast<long>(id_rank), dims.end());
  Tensor* out = ctx->allocate_output(0, data.dtype(), TensorShape(out_dims));
  if (out == nullptr) return;
  const int64_t inner = Product(dims, id_rank, dims.size());
  if (data.dtype() == DT_FLOAT) return SegmentSum<float>(data, *ids, inner, out);
  if (data.dtype() == DT_DOUBLE) return SegmentSum<double>(data, *ids, inner, out);
  FailInvalidArgument(ctx, "UnsortedSegmentSum has no kernel for ", DataTypeName(data.dtype()));
}

Status UnsortedSegmentSumShape(ShapeContext& c) {
  const PartialShape& data = c.input_shape(0);
  const PartialShape& ids = c.input_shape(1);
  const Tensor* num = c.input_constant(2);
  if (!data.known_rank() || !ids.known_rank()) {
    c.set_output(0, PartialShape());
    return OkStatus();
  }
  if (ids.rank() > data.rank())
    return c.MakeError(StrCat("segment_ids has rank ", ids.rank(), " but data only rank ", data.rank()));
  std::vector<int64_t> dims{-1};
  if (num != nullptr) {
    auto values = ReadIndexVector(*num);
    if (values.ok() && values->size() == 1) dims[0] = (*values)[0];
  }
  dims.insert(dims.end(), data.dims().begin() + ids.rank(), data.dims().end());
  c.set_output(0, PartialShape(dims));
  return OkStatus();
}

// ---- Scatter ---------------------------------------------------------------------------------------

enum class ScatterKind { kAdd, kSub, kUpdate };

template <typename T>
void ScatterRows(ScatterKind kind, const std::vector<int64_t>& ids, const Tensor& updates, int64_t inner,
                 Tensor* target) {
  T* rows = target->data<T>();
  const T* from = updates.data<T>();
  for (size_t k = 0; k < ids.size(); ++k) {
    T* row = rows + ids[k] * inner;
    const T* u = from + static_cast<int64_t>(k) * inner;
    for (int64_t j = 0; j < inner; ++j) {
      if (kind == ScatterKind::kAdd) row[j] += u[j];
      else if (kind == ScatterKind::kSub) row[j] -= u[j];
      else row[j] = u[j];
    }
  }
}

void ScatterCompute(OpKernelContext* ctx, ScatterKind kind) {
  const std::string var_name = InputNodeName(ctx->node(), 0);
  const auto& var = ctx->input_ref(0);
  if (!var) return FailInvalidArgument(ctx, ctx->node().op(), " needs a variable reference as input 0");
  auto ids = FlatIndices(ctx->input(1));
  if (!ids.ok()) return ctx->SetStatus(errors::Annotate(ids.status(), StrCat(ctx->node().op(), ": ")));
  const Tensor updates = ctx->input(2);
  std::lock_guard<std::mutex> lock(var->mu());
  Tensor& current = var->value();
  if (!current.IsInitialized()) return ctx->SetStatus(UninitializedError(var_name, ctx->name()));
  if (updates.dtype() != current.dtype())
    return FailInvalidArgument(ctx, "updates are ", DataTypeName(updates.dtype()), " but variable '", var_name, "' is ",
                               DataTypeName(current.dtype()));
  const auto& dims = current.shape().dims();
  if (dims.empty()) return FailInvalidArgument(ctx, "cannot scatter into the scalar variable '", var_name, "'");
  std::vector<int64_t> expected = ctx->input(1).shape().dims();
  expected.insert(expected.end(), dims.begin() + 1, dims.end());
  if (updates.shape().dims() != expected)
    return FailInvalidArgument(ctx, "updates must have shape indices.shape + ", var_name,
                               ".shape[1:] = ", TensorShape(expected).DebugString(), ", got ",
                               updates.shape().DebugString());
  for (size_t k = 0; k < ids->size(); ++k)
    if ((*ids)[k] < 0 || (*ids)[k] >= dims[0])
      return FailInvalidArgument(ctx, "indices[", k, "] = ", (*ids)[k], " is not in [0, ", dims[0],
                                 ") (rows of variable '", var_name, "')");
  const bool in_place = OnlyVariableHolds(ctx, current, updates);
  Tensor target = in_place ? current : current.DeepCopy();
  const int64_t inner = Product(dims, 1, dims.size());
  if (current.dtype() == DT_FLOAT) ScatterRows<float>(kind, *ids, updates, inner, &target);
  else if (current.dtype() == DT_DOUBLE) ScatterRows<double>(kind, *ids, updates, inner, &target);
  else return FailInvalidArgument(ctx, ctx->node().op(), " has no kernel for ", DataTypeName(current.dtype()));
  current = std::move(target);
  ctx->set_output_ref(0, var);
}

Status RefShape(ShapeContext& c) {
  c.set_output(0, c.input_shape(0));
  return OkStatus();
}

void RegisterScatter(OpRegistry& registry, const char* name, ScatterKind kind, const char* summary) {
  registry.Register(name)
      .Input("ref: Ref(T)")
      .Input("indices: Tindices")
      .Input("updates: T")
      .Output("output_ref: Ref(T)")
      .Attr("T: {float, double}")
      .Attr("Tindices: {int32, int64}")
      .Attr("use_locking: bool = false")
      .SetShapeFn(RefShape)
      .Kernel("CPU", LambdaKernel([kind](OpKernelContext* ctx) { ScatterCompute(ctx, kind); }))
      .Summary(summary)
      .Group("state");
}

}  // namespace

void RegisterGatherScatterOps(OpRegistry& registry) {
  registry.Register("GatherV2")
      .Input("params: Tparams")
      .Input("indices: Tindices")
      .Input("axis: Taxis")
      .Output("output: Tparams")
      .Attr("Tparams: type")
      .Attr("Tindices: {int32, int64}")
      .Attr("Taxis: {int32, int64}")
      .Attr("batch_dims: int = 0")
      .SetShapeFn(GatherV2Shape)
      .Kernel("CPU", LambdaKernel(GatherV2Kernel))
      .Summary("Slices of params along axis at the given indices (tf.gather; an embedding lookup).")
      .Group("array");
  registry.Register("Gather")
      .Input("params: Tparams")
      .Input("indices: Tindices")
      .Output("output: Tparams")
      .Attr("Tparams: type")
      .Attr("Tindices: {int32, int64}")
      .Attr("validate_indices: bool = true")
      .SetShapeFn([](ShapeContext& c) { return GatherShape(c, 0, true); })
      .Kernel("CPU", LambdaKernel([](OpKernelContext* ctx) { GatherCompute(ctx, 0); }))
      .Summary("Rows of params at the given indices (the older form of GatherV2, axis 0).")
      .Group("array");
  registry.Register("UnsortedSegmentSum")
      .Input("data: T")
      .Input("segment_ids: Tindices")
      .Input("num_segments: Tnumsegments")
      .Output("output: T")
      .Attr("T: {float, double}")
      .Attr("Tindices: {int32, int64}")
      .Attr("Tnumsegments: {int32, int64} = DT_INT32")
      .SetShapeFn(UnsortedSegmentSumShape)
      .Kernel("CPU", LambdaKernel(UnsortedSegmentSumKernel))
      .Summary("Sums the rows of data into num_segments rows by segment id (negative ids are dropped).")
      .Group("math");
  RegisterScatter(registry, "ScatterAdd", ScatterKind::kAdd, "Adds updates to the given rows of a variable.");
  RegisterScatter(registry, "ScatterSub", ScatterKind::kSub, "Subtracts updates from the given rows of a variable.");
  RegisterScatter(registry, "ScatterUpdate", ScatterKind::kUpdate, "Sets the given rows of a variable.");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kGatherScatterOpFamily("gather scatter", RegisterGatherScatterOps);

}  // namespace clab
