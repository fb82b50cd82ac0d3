// Neural-network activations: Relu, LeakyRelu, Sigmoid, Tanh, and Softmax and LogSoftmax over
// the last axis.
#include "ops/MathOpsInternal.h"

#include <cmath>

namespace clab {
namespace math_internal {
namespace {

template <typename T>
struct ReluFunctor {
  static constexpr bool kIntegers = true;
  static constexpr double kCyclesPerElement = 1;
  static void Apply(const T* x, T* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] > T(0) ? x[i] : T(0);
  }
};

template <typename T>
struct SigmoidFunctor {
  static constexpr bool kIntegers = false;
  static constexpr double kCyclesPerElement = 15;
  // 1 / (1 + exp(-x)) keeps full relative precision for very negative x, where Eigen's
  // float logistic() approximation is off by up to 1e-3 relative, and saturates cleanly
  // at both ends: exp(-x) = inf gives 0, exp(-x) = 0 gives 1.
  static void Apply(const T* x, T* y, int64_t n) {
    ArrayMap<T>(y, n) = (T(1) + (-ConstArrayMap<T>(x, n)).exp()).inverse();
  }
};

template <typename T>
struct TanhFunctor {
  static constexpr bool kIntegers = false;
  static constexpr double kCyclesPerElement = 12;
  static void Apply(const T* x, T* y, int64_t n) { ArrayMap<T>(y, n) = ConstArrayMap<T>(x, n).tanh(); }
};

// softmax(x)_i = exp(x_i - max x) / sum_j exp(x_j - max x): subtracting the row maximum
// keeps exp from overflowing for large logits without changing the result. LogSoftmax is
// (x_i - max x) - log sum_j exp(x_j - max x), exact even where softmax underflows to 0.
template <typename T>
class SoftmaxKernel : public OpKernel {
 public:
  explicit SoftmaxKernel(bool log) : log_(log) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    if (logits.shape().rank() < 1) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "logits must have >= 1 dimension, got ", logits.shape().DebugString()));
      return;
    }
    Tensor* output = ctx->allocate_output(0, logits.dtype(), logits.shape());
    if (output == nullptr) return;
    const int64_t depth = logits.shape().dim(logits.shape().rank() - 1);
    if (depth == 0) return;
    const int64_t rows = logits.NumElements() / depth;
    const T* in = logits.data<T>();
    T* out = output->data<T>();
    const bool log = log_;
    ParallelForRange(ctx, rows, 15.0 * static_cast<double>(depth), [=](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        ConstArrayMap<T> x(in + r * depth, depth);
        ArrayMap<T> y(out + r * depth, depth);
        if (log) {
          y = x - x.maxCoeff();
          y -= std::log(y.exp().sum());
        } else {
          y = (x - x.maxCoeff()).exp();
          y /= y.sum();
        }
      }
    });
  }

 private:
  const bool log_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeSoftmaxKernel(OpKernelConstruction& construction) {
  const bool log = construction.op().name == "LogSoftmax";
  switch (construction.input_type(0)) {
    case DT_FLOAT: return std::unique_ptr<OpKernel>(new SoftmaxKernel<float>(log));
    case DT_DOUBLE: return std::unique_ptr<OpKernel>(new SoftmaxKernel<double>(log));
    default:
      return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                     ") has no CPU kernel for type ", DataTypeName(construction.input_type(0)));
  }
}

// LeakyRelu: x where x > 0, else alpha * x (TensorFlow's kernel: the comparison is strict, so
// x = 0 gives alpha * 0).
template <typename T>
class LeakyReluKernel : public OpKernel {
 public:
  explicit LeakyReluKernel(float alpha) : alpha_(static_cast<T>(alpha)) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = ctx->allocate_output(0, x.dtype(), x.shape());
    if (y == nullptr) return;
    const T* in = x.data<T>();
    T* out = y->data<T>();
    const T alpha = alpha_;
    ParallelForRange(ctx, x.NumElements(), 2, [=](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[i] = in[i] > T(0) ? in[i] : alpha * in[i];
    });
  }

 private:
  const T alpha_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeLeakyReluKernel(OpKernelConstruction& construction) {
  float alpha = 0.2f;
  CLAB_RETURN_IF_ERROR(construction.GetAttr("alpha", &alpha));
  switch (construction.input_type(0)) {
    case DT_FLOAT: return std::unique_ptr<OpKernel>(new LeakyReluKernel<float>(alpha));
    case DT_DOUBLE: return std::unique_ptr<OpKernel>(new LeakyReluKernel<double>(alpha));
    default:
      return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                     ") has no CPU kernel for type ", DataTypeName(construction.input_type(0)));
  }
}

Status SoftmaxShape(ShapeContext& ctx) {
  const PartialShape& logits = ctx.input_shape(0);
  if (logits.known_rank() && logits.rank() < 1)
    return ctx.MakeError(absl::StrCat("Shape must be at least rank 1 but is rank ", logits.rank()));
  ctx.set_output(0, logits);
  return OkStatus();
}

}  // namespace
}  // namespace math_internal

void RegisterNnOps(OpRegistry& registry) {
  using namespace math_internal;
  // Input and output names follow TensorFlow's op definitions.
  registry.Register("Relu")
      .Input("features: T")
      .Output("activations: T")
      .Attr("T: {float, double, int32, int64}")
      .SetShapeFn(UnchangedShape)
      .Kernel("CPU", UnaryKernelFactory<ReluFunctor>())
      .Summary("max(x, 0), element-wise.")
      .Group("nn");
  registry.Register("LeakyRelu")
      .Input("features: T")
      .Output("activations: T")
      .Attr("alpha: float = 0.2")
      .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
      .SetShapeFn(UnchangedShape)
      .Kernel("CPU", MakeLeakyReluKernel)
      .Summary("features where features > 0, else alpha * features, element-wise.")
      .Group("nn");
  registry.Register("Sigmoid")
      .Input("x: T")
      .Output("y: T")
      .Attr("T: {float, double}")
      .SetShapeFn(UnchangedShape)
      .Kernel("CPU", UnaryKernelFactory<SigmoidFunctor>())
      .Summary("1 / (1 + exp(-x)), element-wise.")
      .Group("nn");
  registry.Register("Tanh")
      .Input("x: T")
      .Output("y: T")
      .Attr("T: {float, double}")
      .SetShapeFn(UnchangedShape)
      .Kernel("CPU", UnaryKernelFactory<TanhFunctor>())
      .Summary("Hyperbolic tangent, element-wise.")
      .Group("nn");
  registry.Register("Softmax")
      .Input("logits: T")
      .Output("softmax: T")
      .Attr("T: {float, double}")
      .SetShapeFn(SoftmaxShape)
      .Kernel("CPU", MakeSoftmaxKernel)
      .Summary("exp(logits) / sum(exp(logits)) over the last axis, computed stably.")
      .Group("nn");
  registry.Register("LogSoftmax")
      .Input("logits: T")
      .Output("logsoftmax: T")
      .Attr("T: {float, double}")
      .SetShapeFn(SoftmaxShape)
      .Kernel("CPU", MakeSoftmaxKernel)
      .Summary("logits - log(sum(exp(logits))) over the last axis, computed stably.")
      .Group("nn");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kNnOpFamily("nn", RegisterNnOps);

}  // namespace clab
