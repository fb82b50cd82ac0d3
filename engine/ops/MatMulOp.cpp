// MatMul: product = op(a) * op(b) for row-major matrices, op = optional transpose.
#include "ops/MathOpsInternal.h"

#include "clab/core/TensorEigen.h"

#include <algorithm>
#include <type_traits>

namespace clab {
namespace math_internal {
namespace {

// Products this small (the seed program's [1,4] x [4,1]) finish in a few nanoseconds with a
// plain loop; Eigen's GEMM would spend longer setting up its blocking.
constexpr int64_t kNaiveProductMaxWork = 512;

template <typename T>
using ColMajorConstMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>>;

struct MatMulDims {
  int64_t m = 0, k = 0, n = 0;
};

template <typename T>
void NaiveProduct(const T* a, const T* b, T* out, const MatMulDims& d, bool transpose_a, bool transpose_b) {
  // Element strides of op(a) and op(b) in their stored (row-major) buffers.
  const int64_t a_row = transpose_a ? 1 : d.k, a_col = transpose_a ? d.m : 1;
  const int64_t b_row = transpose_b ? 1 : d.n, b_col = transpose_b ? d.k : 1;
  for (int64_t i = 0; i < d.m; ++i) {
    for (int64_t j = 0; j < d.n; ++j) {
      T sum = T(0);
      for (int64_t p = 0; p < d.k; ++p)
        sum = WrappingAdd(sum, WrappingMul(a[i * a_row + p * a_col], b[p * b_row + j * b_col]));
      out[i * d.n + j] = sum;
    }
  }
}

// out[rows, cols] block of op(a) * op(b). A transposed row-major matrix is the same buffer
// read as column-major, so no copy is needed for either transpose.
template <typename T>
void GemmBlock(const T* a, const T* b, T* out, const MatMulDims& d, bool transpose_a, bool transpose_b,
               int64_t row_begin, int64_t rows, int64_t col_begin, int64_t cols) {
  EigenMatrixMap<T> product(out, d.m, d.n);
  auto target = product.block(row_begin, col_begin, rows, cols);
  auto multiply = [&](const auto& lhs) {
    if (transpose_b) {
      ColMajorConstMap<T> rhs(b, d.k, d.n);
      target.noalias() = lhs * rhs.middleCols(col_begin, cols);
    } else {
      ConstEigenMatrixMap<T> rhs(b, d.k, d.n);
      target.noalias() = lhs * rhs.middleCols(col_begin, cols);
    }
  };
  if (transpose_a) {
    ColMajorConstMap<T> lhs(a, d.m, d.k);
    multiply(lhs.middleRows(row_begin, rows));
  } else {
    ConstEigenMatrixMap<T> lhs(a, d.m, d.k);
    multiply(lhs.middleRows(row_begin, rows));
  }
}

// Products at least this large go to Eigen's tensor contraction on the intra-op pool, which
// shares packed panels between its threads (blocks of the output per thread, each an
// independent GEMM, pack the same panels once per thread). Below it the cost of starting the
// contraction's tasks is not repaid.
constexpr double kContractionMinWork = 1 << 20;

// op(a) * op(b) by Eigen's contraction on `pool`: row-major tensors, the contracted axes
// chosen by the transposes, so no copy is made.
template <typename T>
void ContractOnPool(const Eigen::ThreadPoolDevice& pool, const T* a, const T* b, T* out, const MatMulDims& d,
                    bool transpose_a, bool transpose_b) {
  using Matrix = Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor>>;
  const Matrix lhs(a, transpose_a ? d.k : d.m, transpose_a ? d.m : d.k);
  const Matrix rhs(b, transpose_b ? d.n : d.k, transpose_b ? d.k : d.n);
  Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor>> product(out, d.m, d.n);
  const Eigen::array<Eigen::IndexPair<Eigen::Index>, 1> axes{
      Eigen::IndexPair<Eigen::Index>(transpose_a ? 0 : 1, transpose_b ? 1 : 0)};
  product.device(pool) = lhs.contract(rhs, axes);
}

template <typename T>
class MatMulKernel : public OpKernel {
 public:
  MatMulKernel(bool transpose_a, bool transpose_b) : transpose_a_(transpose_a), transpose_b_(transpose_b) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    for (int i = 0; i < 2; ++i) {
      const Tensor& in = ctx->input(i);
      if (!in.shape().IsMatrix()) {
        ctx->SetStatus(
            KernelInvalidArgument(ctx, "In[", i, "] is not a matrix. Instead it has shape ", in.shape().DebugString()));
        return;
      }
    }
    MatMulDims d;
    d.m = a.shape().dim(transpose_a_ ? 1 : 0);
    d.k = a.shape().dim(transpose_a_ ? 0 : 1);
    const int64_t k_of_b = b.shape().dim(transpose_b_ ? 1 : 0);
    d.n = b.shape().dim(transpose_b_ ? 0 : 1);
    if (d.k != k_of_b) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                                           ", In[1]: ", b.shape().DebugString()));
      return;
    }
    Tensor* product = ctx->allocate_output(0, a.dtype(), TensorShape{d.m, d.n});
    if (product == nullptr || d.m == 0 || d.n == 0) return;
    T* out = product->data<T>();
    if (d.k == 0) {
      std::fill(out, out + d.m * d.n, T(0));
      return;
    }
    const T* a_data = a.data<T>();
    const T* b_data = b.data<T>();
    if (d.m * d.n * d.k <= kNaiveProductMaxWork) {
      NaiveProduct(a_data, b_data, out, d, transpose_a_, transpose_b_);
      return;
    }
    if constexpr (std::is_floating_point_v<T>) {
      const Eigen::ThreadPoolDevice* pool = PoolOf(ctx);
      if (pool != nullptr &&
          static_cast<double>(d.m) * static_cast<double>(d.n) * static_cast<double>(d.k) >= kContractionMinWork) {
        ContractOnPool(*pool, a_data, b_data, out, d, transpose_a_, transpose_b_);
        return;
      }
    }
    // Split the longer side of the output across threads; each block is an ordinary GEMM.
    // Eigen's kernel does roughly eight multiply-adds per cycle.
    const bool split_rows = d.m >= d.n;
    const int64_t units = split_rows ? d.m : d.n;
    const double cycles_per_unit = static_cast<double>(split_rows ? d.n : d.m) * static_cast<double>(d.k) / 8.0;
    const bool ta = transpose_a_, tb = transpose_b_;
    ParallelForRange(ctx, units, cycles_per_unit, [&](int64_t begin, int64_t end) {
      if (split_rows) GemmBlock(a_data, b_data, out, d, ta, tb, begin, end - begin, 0, d.n);
      else GemmBlock(a_data, b_data, out, d, ta, tb, 0, d.m, begin, end - begin);
    });
  }

 private:
  bool transpose_a_;
  bool transpose_b_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeMatMulKernel(OpKernelConstruction& construction) {
  bool transpose_a = false, transpose_b = false;
  CLAB_RETURN_IF_ERROR(construction.GetAttr("transpose_a", &transpose_a));
  CLAB_RETURN_IF_ERROR(construction.GetAttr("transpose_b", &transpose_b));
  CLAB_SWITCH_REAL_TYPES(construction.input_type(0), T,
                         { return std::unique_ptr<OpKernel>(new MatMulKernel<T>(transpose_a, transpose_b)); }, {});
  return errors::InvalidArgument("Node '", construction.name(), "' (op MatMul) has no CPU kernel for type ",
                                 DataTypeName(construction.input_type(0)));
}

Status MatMulShape(ShapeContext& ctx) {
  bool transpose_a = false, transpose_b = false;
  CLAB_RETURN_IF_ERROR(ctx.GetAttr("transpose_a", &transpose_a));
  CLAB_RETURN_IF_ERROR(ctx.GetAttr("transpose_b", &transpose_b));
  const PartialShape& a = ctx.input_shape(0);
  const PartialShape& b = ctx.input_shape(1);
  for (const PartialShape* shape : {&a, &b}) {
    if (shape->known_rank() && shape->rank() != 2)
      return ctx.MakeError(absl::StrCat("Shape must be rank 2 but is rank ", shape->rank()));
  }
  const int64_t m = a.known_rank() ? a.dim(transpose_a ? 1 : 0) : -1;
  const int64_t k_of_a = a.known_rank() ? a.dim(transpose_a ? 0 : 1) : -1;
  const int64_t k_of_b = b.known_rank() ? b.dim(transpose_b ? 1 : 0) : -1;
  const int64_t n = b.known_rank() ? b.dim(transpose_b ? 0 : 1) : -1;
  if (k_of_a >= 0 && k_of_b >= 0 && k_of_a != k_of_b)
    return ctx.MakeError(absl::StrCat("Dimensions must be equal, but are ", k_of_a, " and ", k_of_b));
  ctx.set_output(0, PartialShape{m, n});
  return OkStatus();
}

}  // namespace

void RegisterMatMulOp(OpRegistry& registry) {
  registry.Register("MatMul")
      .Input("a: T")
      .Input("b: T")
      .Output("product: T")
      .Attr("transpose_a: bool = false")
      .Attr("transpose_b: bool = false")
      .Attr("T: {float, double, int32, int64}")
      .SetShapeFn(MatMulShape)
      .Kernel("CPU", MakeMatMulKernel)
      .Summary("Matrix product of two rank-2 tensors, either optionally transposed.")
      .Group("math");
}

}  // namespace math_internal
}  // namespace clab
