// Element-wise logic and selection: LogicalNot, IsFinite, Select (tf.where with three
// arguments: condition of x's shape, or a vector choosing x's rows) and Where (the
// coordinates of the true elements, one row each, in row-major order).
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/ElementCopy.h"

#include <cmath>

namespace clab::array_internal {
namespace {

Status SameShape(ShapeContext& c) {
  c.set_output(0, c.input_shape(0));
  return OkStatus();
}

void LogicalNotCompute(OpKernelContext* ctx) {
  const Tensor& x = ctx->input(0);
  Tensor* out = ctx->allocate_output(0, DT_BOOL, x.shape());
  if (out == nullptr) return;
  for (int64_t i = 0, i_end = x.NumElements(); i < i_end; ++i) out->data<bool>()[i] = !x.data<bool>()[i];
}

void IsFiniteCompute(OpKernelContext* ctx) {
  const Tensor& x = ctx->input(0);
  Tensor* out = ctx->allocate_output(0, DT_BOOL, x.shape());
  if (out == nullptr) return;
  for (int64_t i = 0, i_end = x.NumElements(); i < i_end; ++i)
    out->data<bool>()[i] =
        x.dtype() == DT_FLOAT ? std::isfinite(x.data<float>()[i]) : std::isfinite(x.data<double>()[i]);
}

void SelectCompute(OpKernelContext* ctx) {
  Tensor cond, t, e;
  if (!ReadInput(ctx, 0, &cond) || !ReadInput(ctx, 1, &t) || !ReadInput(ctx, 2, &e)) return;
  if (!(t.shape() == e.shape()))
    return FailInvalidArgument(ctx,
                               "'then' and 'else' must have the same size.  but received: ", t.shape().DebugString(),
                               " vs. ", e.shape().DebugString());
  const bool rows = cond.shape().rank() == 1 && t.shape().rank() > 1;
  if (!rows && !(cond.shape() == t.shape()) && cond.NumElements() != 1)
    return FailInvalidArgument(ctx, "'cond' must be a scalar, a vector of the first dimension or of x's shape, not ",
                               cond.shape().DebugString(), " for ", t.shape().DebugString());
  if (rows && cond.shape().dim(0) != t.shape().dim(0))
    return FailInvalidArgument(ctx,
                               "Number of batches of 'then' must match size of 'cond', but saw: ", t.shape().dim(0),
                               " vs. ", cond.shape().dim(0));
  Tensor* out = ctx->allocate_output(0, t.dtype(), t.shape());
  if (out == nullptr) return;
  const int64_t n = t.NumElements();
  const int64_t row = rows ? n / std::max<int64_t>(1, t.shape().dim(0)) : 1;
  for (int64_t i = 0; i < n; ++i) {
    const bool pick = cond.NumElements() == 1 && !rows ? cond.data<bool>()[0] : cond.data<bool>()[rows ? i / row : i];
    CopyElements(pick ? t : e, i, out, i, 1);
  }
}

void WhereCompute(OpKernelContext* ctx) {
  const Tensor& x = ctx->input(0);
  const std::vector<int64_t>& dims = x.shape().dims();
  std::vector<int64_t> coords;
  int64_t count = 0;
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t k = 0, k_end = x.NumElements(); k < k_end; ++k) {
    bool truth = false;
    if (x.dtype() == DT_BOOL) {
      truth = x.data<bool>()[k];
    } else {
      CLAB_SWITCH_REAL_TYPES(x.dtype(), T, truth = x.data<T>()[k] != T(0), truth = false);
    }
    if (truth) {
      coords.insert(coords.end(), index.begin(), index.end());
      ++count;
    }
    for (size_t d = dims.size(); d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  ctx->set_output(0, IndexTensor(DT_INT64, coords, TensorShape({count, static_cast<int64_t>(dims.size())})));
}

void RegisterLogicOps(OpRegistry& registry) {
  registry.Register("LogicalNot")
      .Input("x: bool")
      .Output("y: bool")
      .SetShapeFn(SameShape)
      .Kernel("CPU", LambdaKernel(LogicalNotCompute))
      .Summary("NOT x, element-wise.")
      .Group("logic");
  registry.Register("IsFinite")
      .Input("x: T")
      .Output("y: bool")
      .Attr("T: {float, double}")
      .SetShapeFn(SameShape)
      .Kernel("CPU", LambdaKernel(IsFiniteCompute))
      .Summary("True where x is neither infinite nor NaN.")
      .Group("logic");
  registry.Register("Select")
      .Input("condition: bool")
      .Input("t: T")
      .Input("e: T")
      .Output("output: T")
      .Attr("T: type")
      .SetShapeFn([](ShapeContext& c) {
        auto merged = c.input_shape(1).MergeWith(c.input_shape(2));
        if (!merged.ok()) return c.MakeError(std::string(merged.status().message()));
        c.set_output(0, *merged);
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(SelectCompute))
      .Summary("t where condition holds, else e (condition per element or per row).")
      .Group("logic");
  registry.Register("Where")
      .Input("input: T")
      .Output("index: int64")
      .Attr("T: {bool, float, double, int32, int64} = DT_BOOL")
      .SetShapeFn([](ShapeContext& c) {
        const PartialShape& in = c.input_shape(0);
        c.set_output(0, PartialShape({-1, in.known_rank() ? static_cast<int64_t>(in.rank()) : -1}));
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(WhereCompute))
      .Summary("The coordinates of the true (non-zero) elements, one row each.")
      .Group("logic");
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kLogicOpFamily("logic", RegisterLogicOps);

}  // namespace clab::array_internal
