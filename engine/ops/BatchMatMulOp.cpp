// BatchMatMul and BatchMatMulV2: out[..., :, :] = op(x[..., :, :]) op(y[..., :, :]) for every
// index of the leading (batch) dimensions, op an optional adjoint (the transpose, for the real
// types these kernels take). BatchMatMul wants the same batch dimensions on both sides;
// BatchMatMulV2 broadcasts them as numpy's matmul does.
#include "ops/MathOpsInternal.h"

#include "clab/core/TensorEigen.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

namespace clab {
namespace {

using math_internal::KernelInvalidArgument;

template <typename T>
using RowMajorConstMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <typename T>
using ColMajorConstMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>>;

// The batch dimensions of out from those of x and y (all but the last two): equal, or (with
// `broadcast`) numpy's rule, a missing or size-1 dimension taking the other side's size. -1
// (unknown, in shape functions) is kept where the other side does not decide it.
StatusOr<std::vector<int64_t>> BatchDims(const std::vector<int64_t>& x, const std::vector<int64_t>& y, bool broadcast) {
  if (!broadcast && x.size() != y.size())
    return errors::InvalidArgument("x and y must have the same rank, got batch dimensions of rank ", x.size(), " and ",
                                   y.size());
  const size_t rank = std::max(x.size(), y.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t a = i + x.size() >= rank ? x[i + x.size() - rank] : 1;
    const int64_t b = i + y.size() >= rank ? y[i + y.size() - rank] : 1;
    if (a == b) {
      out[i] = a;
    } else if (broadcast && a == 1) {
      out[i] = b;
    } else if (broadcast && b == 1) {
      out[i] = a;
    } else if (a < 0 || b < 0) {
      out[i] = a < 0 ? b : a;
    } else {
      return errors::InvalidArgument(broadcast ? "x and y cannot be broadcast: batch dimension "
                                               : "x and y must have the same batch dimensions: dimension ",
                                     i, " is ", a, " and ", b);
    }
  }
  return out;
}

// The offset of batch `index` (of the out batch shape) in a side with batch dims `dims`,
// counted in matrices: size-1 and missing dimensions repeat.
int64_t BatchOffset(int64_t index, const std::vector<int64_t>& out_dims, const std::vector<int64_t>& dims) {
  int64_t offset = 0, stride = 1;
  for (size_t i = out_dims.size(), j = dims.size(); i-- > 0;) {
    const int64_t coordinate = index % out_dims[i];
    index /= out_dims[i];
    if (j == 0) continue;
    --j;
    if (dims[j] != 1) offset += coordinate * stride;
    stride *= dims[j];
  }
  return offset;
}

template <typename T>
void MultiplyOne(const T* x, const T* y, T* out, int64_t x_rows, int64_t x_cols, int64_t y_rows, int64_t y_cols,
                 bool adj_x, bool adj_y) {
  const int64_t m = adj_x ? x_cols : x_rows, n = adj_y ? y_rows : y_cols;
  Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> z(out, m, n);
  // A transposed row-major matrix is the same buffer read as column-major.
  auto with_rhs = [&](const auto& lhs) {
    if (adj_y) z.noalias() = lhs * ColMajorConstMap<T>(y, y_cols, y_rows);
    else z.noalias() = lhs * RowMajorConstMap<T>(y, y_rows, y_cols);
  };
  if (adj_x) with_rhs(ColMajorConstMap<T>(x, x_cols, x_rows));
  else with_rhs(RowMajorConstMap<T>(x, x_rows, x_cols));
}

template <typename T>
class BatchMatMulKernel : public OpKernel {
 public:
  BatchMatMulKernel(bool adj_x, bool adj_y, bool broadcast) : adj_x_(adj_x), adj_y_(adj_y), broadcast_(broadcast) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    for (int i = 0; i < 2; ++i) {
      if (ctx->input(i).shape().rank() < 2) {
        ctx->SetStatus(KernelInvalidArgument(ctx, i == 0 ? "x" : "y", " must have rank >= 2, got shape ",
                                             ctx->input(i).shape().DebugString()));
        return;
      }
    }
    const std::vector<int64_t>& xd = x.shape().dims();
    const std::vector<int64_t>& yd = y.shape().dims();
    const int64_t x_rows = xd[xd.size() - 2], x_cols = xd.back();
    const int64_t y_rows = yd[yd.size() - 2], y_cols = yd.back();
    const int64_t k_x = adj_x_ ? x_rows : x_cols, k_y = adj_y_ ? y_cols : y_rows;
    if (k_x != k_y) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "Matrix size-incompatible: In[0]: ", x.shape().DebugString(),
                                           ", In[1]: ", y.shape().DebugString(), " (adj_x ", adj_x_, ", adj_y ", adj_y_,
                                           ")"));
      return;
    }
    const std::vector<int64_t> x_batch(xd.begin(), xd.end() - 2), y_batch(yd.begin(), yd.end() - 2);
    auto batch = BatchDims(x_batch, y_batch, broadcast_);
    if (!batch.ok()) {
      ctx->SetStatus(KernelInvalidArgument(ctx, batch.status().message(), ": In[0]: ", x.shape().DebugString(),
                                           ", In[1]: ", y.shape().DebugString()));
      return;
    }
    const int64_t m = adj_x_ ? x_cols : x_rows, n = adj_y_ ? y_rows : y_cols;
    std::vector<int64_t> out_dims = *batch;
    out_dims.push_back(m);
    out_dims.push_back(n);
    Tensor* out = ctx->allocate_output(0, x.dtype(), TensorShape(out_dims));
    if (out == nullptr || out->NumElements() == 0) return;
    T* z = out->data<T>();
    if (k_x == 0) {
      std::fill_n(z, out->NumElements(), T(0));
      return;
    }
    int64_t batches = 1;
    for (int64_t d : *batch) batches *= d;
    const T* xs = x.data<T>();
    const T* ys = y.data<T>();
    const bool adj_x = adj_x_, adj_y = adj_y_;
    const std::vector<int64_t>& out_batch = *batch;
    math_internal::ParallelForRange(
        ctx, batches, static_cast<double>(m * n * k_x) / 4.0 + 100.0, [&](int64_t begin, int64_t end) {
          for (int64_t b = begin; b < end; ++b) {
            const T* xb = xs + BatchOffset(b, out_batch, x_batch) * x_rows * x_cols;
            const T* yb = ys + BatchOffset(b, out_batch, y_batch) * y_rows * y_cols;
            MultiplyOne(xb, yb, z + b * m * n, x_rows, x_cols, y_rows, y_cols, adj_x, adj_y);
          }
        });
  }

 private:
  const bool adj_x_, adj_y_, broadcast_;
};

KernelFactory BatchMatMulFactory(bool broadcast) {
  return [broadcast](OpKernelConstruction& construction) -> StatusOr<std::unique_ptr<OpKernel>> {
    bool adj_x = false, adj_y = false;
    CLAB_RETURN_IF_ERROR(construction.GetAttr("adj_x", &adj_x));
    CLAB_RETURN_IF_ERROR(construction.GetAttr("adj_y", &adj_y));
    CLAB_SWITCH_REAL_TYPES(construction.input_type(0), T,
                           { return std::unique_ptr<OpKernel>(new BatchMatMulKernel<T>(adj_x, adj_y, broadcast)); },
                           {});
    return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                   ") has no CPU kernel for type ", DataTypeName(construction.input_type(0)));
  };
}

Status BatchMatMulShape(ShapeContext& c, bool broadcast) {
  const PartialShape& x = c.input_shape(0);
  const PartialShape& y = c.input_shape(1);
  for (const PartialShape* side : {&x, &y})
    if (side->known_rank() && side->rank() < 2)
      return c.MakeError(absl::StrCat("Shape must be at least rank 2 but is rank ", side->rank()));
  if (!x.known_rank() || !y.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return OkStatus();
  }
  bool adj_x = false, adj_y = false;
  CLAB_RETURN_IF_ERROR(c.GetAttr("adj_x", &adj_x));
  CLAB_RETURN_IF_ERROR(c.GetAttr("adj_y", &adj_y));
  const std::vector<int64_t>& xd = x.dims();
  const std::vector<int64_t>& yd = y.dims();
  const int64_t x_rows = xd[xd.size() - 2], x_cols = xd.back();
  const int64_t y_rows = yd[yd.size() - 2], y_cols = yd.back();
  const int64_t k_x = adj_x ? x_rows : x_cols, k_y = adj_y ? y_cols : y_rows;
  if (k_x >= 0 && k_y >= 0 && k_x != k_y)
    return c.MakeError(absl::StrCat("Dimensions must be equal, but are ", k_x, " and ", k_y));
  auto batch = BatchDims(std::vector<int64_t>(xd.begin(), xd.end() - 2), std::vector<int64_t>(yd.begin(), yd.end() - 2),
                         broadcast);
  if (!batch.ok()) return c.MakeError(std::string(batch.status().message()));
  std::vector<int64_t> out = *batch;
  out.push_back(adj_x ? x_cols : x_rows);
  out.push_back(adj_y ? y_rows : y_cols);
  c.set_output(0, PartialShape(std::move(out)));
  return OkStatus();
}

void RegisterBatchMatMulOps(OpRegistry& registry) {
  for (const bool broadcast : {false, true}) {
    registry.Register(broadcast ? "BatchMatMulV2" : "BatchMatMul")
        .Input("x: T")
        .Input("y: T")
        .Output("output: T")
        .Attr("T: {float, double, int32, int64}")
        .Attr("adj_x: bool = false")
        .Attr("adj_y: bool = false")
        .SetShapeFn([broadcast](ShapeContext& c) { return BatchMatMulShape(c, broadcast); })
        .Kernel("CPU", BatchMatMulFactory(broadcast))
        .Summary(broadcast ? "Matrix products over the last two dimensions; the batch dimensions broadcast."
                           : "Matrix products over the last two dimensions of tensors with equal batch dimensions.")
        .Group("math");
  }
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kBatchMatMulOpFamily("batch matmul", RegisterBatchMatMulOps);

}  // namespace clab
