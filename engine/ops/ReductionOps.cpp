// Sum and Mean over the axes given by the reduction_indices input.
//
// The input is first simplified: dimensions of size 1 are dropped and neighbouring
// dimensions that are both reduced or both kept are merged. Each pass then reduces the
// innermost reduced group, [outer, R, inner] -> [outer, inner], until none is left; most
// reductions (all, rows, columns, a middle axis) take a single pass. Work is cut into
// blocks of fixed size whose partial sums are added in a fixed order, so results do not
// depend on the number of threads. Floats accumulate in double and int32 in int64.
#include "ops/MathOpsInternal.h"
#include "ops/ReductionInternal.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace clab {
namespace math_internal {
namespace {

template <typename T>
struct AccumulatorOf {
  using type = T;
};
template <>
struct AccumulatorOf<float> {
  using type = double;
};
template <>
struct AccumulatorOf<int32_t> {
  using type = int64_t;
};

// Elements summed by one block before its partial sum is set aside.
constexpr int64_t kBlockElements = 4096;
// Columns one block handles when reducing over a non-innermost axis.
constexpr int64_t kBlockColumns = 256;

}  // namespace

// Marks the axes named by `axes` (negative ones count from the end); rejects axes out of
// range and repeated axes.
Status NormalizeAxes(const Tensor& axes, int rank, std::vector<bool>* reduced) {
  reduced->assign(static_cast<size_t>(rank), false);
  if (axes.shape().rank() > 1) {
    return errors::InvalidArgument("reduction_indices must be a scalar or vector, got shape ",
                                   axes.shape().DebugString());
  }
  for (int64_t i = 0, i_end = axes.NumElements(); i < i_end; ++i) {
    const int64_t axis = axes.dtype() == DT_INT64 ? axes.data<int64_t>()[i] : axes.data<int32_t>()[i];
    if (axis < -rank || axis >= rank) {
      return errors::InvalidArgument("Invalid reduction dimension ", axis, " for input with ", rank, " dimension(s)");
    }
    const size_t index = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    if ((*reduced)[index]) {
      return errors::InvalidArgument("Invalid reduction arguments: axes contain dimension ", index, " twice");
    }
    (*reduced)[index] = true;
  }
  return OkStatus();
}

namespace {

struct Group {
  int64_t size;
  bool reduced;
};

// One pass: in[outer, rows, inner] summed over `rows` into out[outer, inner].
template <typename In, typename Acc>
void ReduceMiddleAxis(const OpKernelContext* ctx, const In* in, Acc* out, int64_t outer, int64_t rows, int64_t inner) {
  const int64_t rows_per_block = inner == 1 ? kBlockElements : std::max<int64_t>(16, kBlockElements / inner);
  const int64_t row_blocks = (rows + rows_per_block - 1) / rows_per_block;
  const int64_t cols_per_block = std::min(inner, kBlockColumns);
  const int64_t col_blocks = (inner + cols_per_block - 1) / cols_per_block;
  // With one row block the partial sums are the result; otherwise they are folded below.
  std::vector<Acc> partial_storage;
  Acc* partial = out;
  if (row_blocks > 1) {
    partial_storage.resize(static_cast<size_t>(outer * row_blocks * inner));
    partial = partial_storage.data();
  }
  const int64_t units = outer * row_blocks * col_blocks;
  ParallelForRange(ctx, units, static_cast<double>(rows_per_block * cols_per_block), [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t col_block = u % col_blocks;
      const int64_t row_block = (u / col_blocks) % row_blocks;
      const int64_t o = u / (col_blocks * row_blocks);
      const int64_t r0 = row_block * rows_per_block, r1 = std::min(rows, r0 + rows_per_block);
      const int64_t c0 = col_block * cols_per_block, c1 = std::min(inner, c0 + cols_per_block);
      Acc* acc = partial + (o * row_blocks + row_block) * inner;
      const In* base = in + o * rows * inner;
      if (inner == 1) {
        // Integer sums wrap on overflow (WrappingAdd); Eigen's sum would overflow undefined.
        if constexpr (std::is_integral_v<Acc>) {
          Acc sum = 0;
          for (int64_t r = r0; r < r1; ++r) sum = WrappingAdd(sum, static_cast<Acc>(base[r]));
          acc[0] = sum;
        } else {
          acc[0] = ConstArrayMap<In>(base + r0, r1 - r0).template cast<Acc>().sum();
        }
        continue;
      }
      std::fill(acc + c0, acc + c1, Acc(0));
      for (int64_t r = r0; r < r1; ++r) {
        const In* row = base + r * inner;
        for (int64_t c = c0; c < c1; ++c) acc[c] = WrappingAdd(acc[c], static_cast<Acc>(row[c]));
      }
    }
  });
  if (row_blocks == 1) return;
  for (int64_t o = 0; o < outer; ++o) {
    Acc* dst = out + o * inner;
    std::fill(dst, dst + inner, Acc(0));
    for (int64_t rb = 0; rb < row_blocks; ++rb) {
      const Acc* src = partial + (o * row_blocks + rb) * inner;
      for (int64_t c = 0; c < inner; ++c) dst[c] = WrappingAdd(dst[c], src[c]);
    }
  }
}

template <typename T, bool kMean>
class ReductionKernel : public OpKernel {
 public:
  using Acc = typename AccumulatorOf<T>::type;

  explicit ReductionKernel(bool keep_dims) : keep_dims_(keep_dims) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.shape().rank();
    std::vector<bool> reduced;
    if (Status status = NormalizeAxes(ctx->input(1), rank, &reduced); !status.ok()) {
      ctx->SetStatus(KernelInvalidArgument(ctx, std::string(status.message())));
      return;
    }

    TensorShape output_shape;
    std::vector<Group> groups;
    int64_t reduced_count = 1;
    for (int i = 0; i < rank; ++i) {
      const int64_t size = input.shape().dim(i);
      const bool r = reduced[static_cast<size_t>(i)];
      if (r) reduced_count *= size;
      if (!r || keep_dims_) output_shape.AddDim(r ? 1 : size);
      if (size == 1) continue;
      if (!groups.empty() && groups.back().reduced == r) groups.back().size *= size;
      else groups.push_back({size, r});
    }

    if (input.NumElements() == 0) {
      FillEmptyReduction(ctx, output_shape, reduced_count);
      return;
    }
    const bool any_reduced = std::any_of(groups.begin(), groups.end(), [](const Group& g) { return g.reduced; });
    if (!any_reduced) {
      // Only size-1 axes (or none) are reduced: the values are the input's, reshaped.
      StatusOr<Tensor> same = input.Reshaped(output_shape);
      if (!same.ok()) {
        ctx->SetStatus(KernelInvalidArgument(ctx, std::string(same.status().message())));
        return;
      }
      ctx->set_output(0, *std::move(same));
      return;
    }

    Tensor* output = ctx->allocate_output(0, input.dtype(), output_shape);
    if (output == nullptr) return;
    std::vector<Acc> sums = ReduceGroups(ctx, input.data<T>(), std::move(groups));
    T* out = output->data<T>();
    const int64_t n = output->NumElements();
    for (int64_t i = 0; i < n; ++i) {
      const Acc value =
          kMean ? sums[static_cast<size_t>(i)] / static_cast<Acc>(reduced_count) : sums[static_cast<size_t>(i)];
      out[i] = static_cast<T>(value);
    }
  }

 private:
  // Repeatedly reduces the innermost reduced group until only kept groups remain.
  static std::vector<Acc> ReduceGroups(const OpKernelContext* ctx, const T* input, std::vector<Group> groups) {
    std::vector<Acc> current, next;
    bool first = true;
    for (;;) {
      int last_reduced = -1;
      for (int i = 0; i < static_cast<int>(groups.size()); ++i)
        if (groups[static_cast<size_t>(i)].reduced) last_reduced = i;
      if (last_reduced < 0) break;
      int64_t outer = 1, inner = 1;
      for (int i = 0; i < last_reduced; ++i) outer *= groups[static_cast<size_t>(i)].size;
      for (size_t i = static_cast<size_t>(last_reduced) + 1; i < groups.size(); ++i) inner *= groups[i].size;
      const int64_t rows = groups[static_cast<size_t>(last_reduced)].size;
      next.assign(static_cast<size_t>(outer * inner), Acc(0));
      if (first) ReduceMiddleAxis<T, Acc>(ctx, input, next.data(), outer, rows, inner);
      else ReduceMiddleAxis<Acc, Acc>(ctx, current.data(), next.data(), outer, rows, inner);
      first = false;
      current.swap(next);
      // The kept groups around the reduced one become neighbours: merge them.
      groups.erase(groups.begin() + last_reduced);
      if (last_reduced > 0 && static_cast<size_t>(last_reduced) < groups.size()) {
        groups[static_cast<size_t>(last_reduced) - 1].size *= groups[static_cast<size_t>(last_reduced)].size;
        groups.erase(groups.begin() + last_reduced);
      }
    }
    return current;
  }

  // Reducing over an empty axis: the sum is 0 and the mean 0/0 (NaN for floats; 0 for
  // integers, where TensorFlow would divide by zero).
  static void FillEmptyReduction(OpKernelContext* ctx, const TensorShape& shape, int64_t reduced_count) {
    Tensor* output = ctx->allocate_output(0, DataTypeOf<T>::value, shape);
    if (output == nullptr) return;
    T fill = T(0);
    if constexpr (kMean && std::is_floating_point_v<T>) {
      if (reduced_count == 0) fill = std::numeric_limits<T>::quiet_NaN();
    }
    std::fill(output->data<T>(), output->data<T>() + output->NumElements(), fill);
  }

  bool keep_dims_;
};

template <bool kMean>
StatusOr<std::unique_ptr<OpKernel>> MakeReductionKernel(OpKernelConstruction& construction) {
  bool keep_dims = false;
  CLAB_RETURN_IF_ERROR(construction.GetAttr("keep_dims", &keep_dims));
  switch (construction.input_type(0)) {
    case DT_FLOAT: return std::unique_ptr<OpKernel>(new ReductionKernel<float, kMean>(keep_dims));
    case DT_DOUBLE: return std::unique_ptr<OpKernel>(new ReductionKernel<double, kMean>(keep_dims));
    case DT_INT32: return std::unique_ptr<OpKernel>(new ReductionKernel<int32_t, kMean>(keep_dims));
    case DT_INT64: return std::unique_ptr<OpKernel>(new ReductionKernel<int64_t, kMean>(keep_dims));
    default: break;
  }
  return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                 ") has no CPU kernel for type ", DataTypeName(construction.input_type(0)));
}

}  // namespace

Status ReductionShape(ShapeContext& ctx) {
  bool keep_dims = false;
  CLAB_RETURN_IF_ERROR(ctx.GetAttr("keep_dims", &keep_dims));
  const PartialShape& input = ctx.input_shape(0);
  const PartialShape& axes_shape = ctx.input_shape(1);
  const Tensor* axes = ctx.input_constant(1);
  if (axes_shape.known_rank() && axes_shape.rank() > 1)
    return ctx.MakeError(absl::StrCat("Shape must be at most rank 1 but is rank ", axes_shape.rank()));
  // A known-empty axis list reduces nothing.
  if (axes_shape.rank() == 1 && axes_shape.dim(0) == 0) {
    ctx.set_output(0, input);
    return OkStatus();
  }
  if (axes == nullptr || !input.known_rank()) {
    ctx.set_output(0, keep_dims && input.known_rank() ? PartialShape::UnknownOfRank(input.rank())
                                                      : PartialShape::Unknown());
    return OkStatus();
  }
  std::vector<bool> reduced;
  if (Status status = NormalizeAxes(*axes, input.rank(), &reduced); !status.ok())
    return ctx.MakeError(std::string(status.message()));
  std::vector<int64_t> dims;
  for (int i = 0; i < input.rank(); ++i) {
    if (!reduced[static_cast<size_t>(i)]) dims.push_back(input.dim(i));
    else if (keep_dims) dims.push_back(1);
  }
  ctx.set_output(0, PartialShape(std::move(dims)));
  return OkStatus();
}

namespace {

void RegisterReduction(OpRegistry& registry, const char* name, KernelFactory factory, const char* summary) {
  registry.Register(name)
      .Input("input: T")
      .Input("reduction_indices: Tidx")
      .Output("output: T")
      .Attr("keep_dims: bool = false")
      .Attr("T: {float, double, int32, int64}")
      .Attr("Tidx: {int32, int64} = DT_INT32")
      .SetShapeFn(ReductionShape)
      .Kernel("CPU", std::move(factory))
      .Summary(summary)
      .Group("math");
}

}  // namespace

void RegisterReductionOps(OpRegistry& registry) {
  RegisterReduction(registry, "Sum", MakeReductionKernel<false>,
                    "Sum over the given axes (negative axes count from the end).");
  RegisterReduction(registry, "Mean", MakeReductionKernel<true>,
                    "Mean over the given axes; integer means truncate toward zero.");
}

}  // namespace math_internal
}  // namespace clab
