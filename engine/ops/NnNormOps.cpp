// Normalisation ops of convolutional networks, as TensorFlow defines them:
//  - LRN (local response normalisation across channels, the last axis of an NHWC batch):
//      sqr_sum[b,y,x,d] = sum over d' in [d - r, d + r] of input[b,y,x,d']^2
//      output = input / (bias + alpha * sqr_sum)^beta
//    and LRNGrad, its gradient given the forward input and output;
//  - FusedBatchNorm: per channel, y = scale * (x - mean) / sqrt(variance + epsilon) + offset,
//    with the batch's mean and (biased) variance when is_training, else the given ones; the
//    batch_variance output is the unbiased (n / (n - 1)) variance that moving averages use,
//    and reserve_space_1/2 the mean and biased variance FusedBatchNormGrad needs;
//  - FusedBatchNormGrad: the gradients of x, scale and offset.
#include "ops/MathOpsInternal.h"

#include <cmath>

namespace clab {
namespace {

using math_internal::KernelInvalidArgument;

struct LrnParams {
  int64_t depth_radius = 5;
  float bias = 1, alpha = 1, beta = 0.5f;
};

Status ReadLrnParams(const OpKernelConstruction& construction, LrnParams* params) {
  CLAB_RETURN_IF_ERROR(construction.GetAttr("depth_radius", &params->depth_radius));
  CLAB_RETURN_IF_ERROR(construction.GetAttr("bias", &params->bias));
  CLAB_RETURN_IF_ERROR(construction.GetAttr("alpha", &params->alpha));
  CLAB_RETURN_IF_ERROR(construction.GetAttr("beta", &params->beta));
  if (params->depth_radius < 0)
    return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                   "): depth_radius must be >= 0, got ", params->depth_radius);
  return OkStatus();
}

// The window sum of squares around channel d of one row of `depth` channels.
double WindowSquares(const float* row, int64_t depth, int64_t d, int64_t radius) {
  double sum = 0;
  const int64_t first = std::max<int64_t>(0, d - radius), last = std::min<int64_t>(depth - 1, d + radius);
  for (int64_t j = first; j <= last; ++j) sum += static_cast<double>(row[j]) * row[j];
  return sum;
}

bool CheckRank4(OpKernelContext* ctx, const Tensor& t, const char* what) {
  if (t.shape().rank() == 4) return true;
  ctx->SetStatus(KernelInvalidArgument(ctx, what, " must be 4-dimensional, got ", t.shape().DebugString()));
  return false;
}

void LrnCompute(OpKernelContext* ctx, const LrnParams& p) {
  const Tensor& input = ctx->input(0);
  if (!CheckRank4(ctx, input, "input")) return;
  Tensor* output = ctx->allocate_output(0, input.dtype(), input.shape());
  if (output == nullptr) return;
  const int64_t depth = input.shape().dim(3);
  if (depth == 0) return;
  const int64_t rows = input.NumElements() / depth;
  const float* in = input.data<float>();
  float* out = output->data<float>();
  math_internal::ParallelForRange(
      ctx, rows, 10.0 * static_cast<double>(depth * (2 * p.depth_radius + 1)), [=](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const float* x = in + r * depth;
          for (int64_t d = 0; d < depth; ++d) {
            const double norm = p.bias + p.alpha * WindowSquares(x, depth, d, p.depth_radius);
            out[r * depth + d] = static_cast<float>(x[d] * std::pow(norm, -p.beta));
          }
        }
      });
}

// out_d = x_d * N_d^-beta with N_d = bias + alpha * sum_{j near d} x_j^2, so
//   d out_d / d x_k = [d == k] N_d^-beta - 2 alpha beta x_d x_k N_d^(-beta - 1)  (k near d)
// and input_grad_k = sum_d grad_d * that. The window is symmetric: k is near d iff d is near k.
void LrnGradCompute(OpKernelContext* ctx, const LrnParams& p) {
  const Tensor& grads = ctx->input(0);
  const Tensor& image = ctx->input(1);
  const Tensor& out_image = ctx->input(2);
  if (!CheckRank4(ctx, grads, "input_grads") || !CheckRank4(ctx, image, "input_image") ||
      !CheckRank4(ctx, out_image, "output_image"))
    return;
  if (!(grads.shape() == image.shape()) || !(image.shape() == out_image.shape())) {
    ctx->SetStatus(KernelInvalidArgument(ctx, "LRNGrad: input_grads ", grads.shape().DebugString(), ", input_image ",
                                         image.shape().DebugString(), " and output_image ",
                                         out_image.shape().DebugString(), " must have the same shape"));
    return;
  }
  Tensor* output = ctx->allocate_output(0, grads.dtype(), grads.shape());
  if (output == nullptr) return;
  const int64_t depth = image.shape().dim(3);
  if (depth == 0) return;
  const int64_t rows = image.NumElements() / depth;
  const float* g = grads.data<float>();
  const float* in = image.data<float>();
  float* out = output->data<float>();
  math_internal::ParallelForRange(
      ctx, rows, 20.0 * static_cast<double>(depth * (2 * p.depth_radius + 1)), [=](int64_t begin, int64_t end) {
        std::vector<double> norm(static_cast<size_t>(depth));
        for (int64_t r = begin; r < end; ++r) {
          const float* x = in + r * depth;
          const float* gr = g + r * depth;
          for (int64_t d = 0; d < depth; ++d)
            norm[static_cast<size_t>(d)] = p.bias + p.alpha * WindowSquares(x, depth, d, p.depth_radius);
          for (int64_t k = 0; k < depth; ++k) {
            double sum = gr[k] * std::pow(norm[static_cast<size_t>(k)], -p.beta);
            const int64_t first = std::max<int64_t>(0, k - p.depth_radius);
            const int64_t last = std::min<int64_t>(depth - 1, k + p.depth_radius);
            for (int64_t d = first; d <= last; ++d) {
              const double n = norm[static_cast<size_t>(d)];
              sum -= 2.0 * p.alpha * p.beta * gr[d] * x[d] * x[k] * std::pow(n, -p.beta - 1);
            }
            out[r * depth + k] = static_cast<float>(sum);
          }
        }
      });
}

KernelFactory LrnKernelFactory(bool grad) {
  return [grad](OpKernelConstruction& construction) -> StatusOr<std::unique_ptr<OpKernel>> {
    LrnParams params;
    CLAB_RETURN_IF_ERROR(ReadLrnParams(construction, &params));
    if (construction.input_type(0) != DT_FLOAT)
      return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                     ") has no CPU kernel for type ", DataTypeName(construction.input_type(0)));
    if (grad) return LambdaKernel([params](OpKernelContext* ctx) { LrnGradCompute(ctx, params); })(construction);
    return LambdaKernel([params](OpKernelContext* ctx) { LrnCompute(ctx, params); })(construction);
  };
}

Status Rank4Shape(ShapeContext& ctx) {
  PartialShape shape = ctx.input_shape(0);
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    const PartialShape& other = ctx.input_shape(i);
    if (!shape.known_rank()) shape = other;
  }
  if (shape.known_rank() && shape.rank() != 4)
    return ctx.MakeError(absl::StrCat("Shape must be rank 4 but is rank ", shape.rank()));
  ctx.set_output(0, shape.known_rank() ? shape : PartialShape::UnknownOfRank(4));
  return OkStatus();
}

// ---- fused batch normalisation -------------------------------------------------------

struct BatchNormParams {
  float epsilon = 0.0001f;
  bool nchw = false;
  bool is_training = true;
};

Status ReadBatchNormParams(const OpKernelConstruction& construction, BatchNormParams* params) {
  std::string format = "NHWC";
  CLAB_RETURN_IF_ERROR(construction.GetAttr("epsilon", &params->epsilon));
  CLAB_RETURN_IF_ERROR(construction.GetAttr("data_format", &format));
  CLAB_RETURN_IF_ERROR(construction.GetAttr("is_training", &params->is_training));
  if (format != "NHWC" && format != "NCHW")
    return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                   "): data_format must be NHWC or NCHW, got '", format, "'");
  params->nchw = format == "NCHW";
  if (construction.input_type(0) != DT_FLOAT)
    return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                   ") has no CPU kernel for type ", DataTypeName(construction.input_type(0)));
  return OkStatus();
}

// Where channel c's elements lie in an NHWC or NCHW tensor: element i belongs to channel
// (i / inner) % channels.
struct ChannelLayout {
  int64_t channels = 0, inner = 1, count = 0;  // count: elements per channel
  int64_t ChannelOf(int64_t i) const { return (i / inner) % channels; }
};

ChannelLayout LayoutOf(const TensorShape& shape, bool nchw) {
  ChannelLayout layout;
  layout.channels = shape.dim(nchw ? 1 : 3);
  layout.inner = nchw ? shape.dim(2) * shape.dim(3) : 1;
  layout.count = layout.channels == 0 ? 0 : shape.num_elements() / layout.channels;
  return layout;
}

bool CheckVector(OpKernelContext* ctx, const Tensor& t, int64_t channels, const char* what) {
  if (t.shape().rank() == 1 && t.shape().dim(0) == channels) return true;
  ctx->SetStatus(KernelInvalidArgument(ctx, what, " must be a vector of ", channels, " (the channels), got ",
                                       t.shape().DebugString()));
  return false;
}

Tensor FloatVector(const std::vector<double>& values) {
  std::vector<float> floats(values.begin(), values.end());
  return Tensor::Vector<float>(floats);
}

void FusedBatchNormCompute(OpKernelContext* ctx, const BatchNormParams& p) {
  const Tensor& x = ctx->input(0);
  if (!CheckRank4(ctx, x, "x")) return;
  const ChannelLayout layout = LayoutOf(x.shape(), p.nchw);
  const auto channels = static_cast<size_t>(layout.channels);
  if (!CheckVector(ctx, ctx->input(1), layout.channels, "scale") ||
      !CheckVector(ctx, ctx->input(2), layout.channels, "offset"))
    return;
  const float* in = x.data<float>();
  std::vector<double> mean(channels, 0), variance(channels, 0);
  if (p.is_training) {
    for (int64_t i = 0; i < x.NumElements(); ++i) mean[static_cast<size_t>(layout.ChannelOf(i))] += in[i];
    for (double& m : mean) m /= static_cast<double>(std::max<int64_t>(layout.count, 1));
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      const auto c = static_cast<size_t>(layout.ChannelOf(i));
      variance[c] += (in[i] - mean[c]) * (in[i] - mean[c]);
    }
    for (double& v : variance) v /= static_cast<double>(std::max<int64_t>(layout.count, 1));
  } else {
    if (!CheckVector(ctx, ctx->input(3), layout.channels, "mean") ||
        !CheckVector(ctx, ctx->input(4), layout.channels, "variance"))
      return;
    for (size_t c = 0; c < channels; ++c) {
      mean[c] = ctx->input(3).data<float>()[c];
      variance[c] = ctx->input(4).data<float>()[c];
    }
  }
  Tensor* y = ctx->allocate_output(0, DT_FLOAT, x.shape());
  if (y == nullptr) return;
  const float* scale = ctx->input(1).data<float>();
  const float* offset = ctx->input(2).data<float>();
  float* out = y->data<float>();
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    const auto c = static_cast<size_t>(layout.ChannelOf(i));
    out[i] = static_cast<float>(scale[c] * (in[i] - mean[c]) / std::sqrt(variance[c] + p.epsilon) + offset[c]);
  }
  std::vector<double> unbiased = variance;
  if (p.is_training && layout.count > 1)
    for (double& v : unbiased) v *= static_cast<double>(layout.count) / static_cast<double>(layout.count - 1);
  ctx->set_output(1, FloatVector(mean));
  ctx->set_output(2, FloatVector(unbiased));
  ctx->set_output(3, FloatVector(mean));
  ctx->set_output(4, FloatVector(variance));
}

// With xhat = (x - mean) / sqrt(var + eps) and m elements per channel:
//   offset_backprop = sum(dy), scale_backprop = sum(dy * xhat),
//   x_backprop = scale / sqrt(var + eps) * (dy - sum(dy) / m - xhat * sum(dy * xhat) / m)
// when training (mean and variance depend on x), else scale / sqrt(var + eps) * dy.
void FusedBatchNormGradCompute(OpKernelContext* ctx, const BatchNormParams& p) {
  const Tensor& dy = ctx->input(0);
  const Tensor& x = ctx->input(1);
  if (!CheckRank4(ctx, dy, "y_backprop") || !CheckRank4(ctx, x, "x")) return;
  if (!(dy.shape() == x.shape())) {
    ctx->SetStatus(KernelInvalidArgument(ctx, "y_backprop ", dy.shape().DebugString(), " and x ",
                                         x.shape().DebugString(), " must have the same shape"));
    return;
  }
  const ChannelLayout layout = LayoutOf(x.shape(), p.nchw);
  const auto channels = static_cast<size_t>(layout.channels);
  if (!CheckVector(ctx, ctx->input(2), layout.channels, "scale") ||
      !CheckVector(ctx, ctx->input(3), layout.channels, "reserve_space_1") ||
      !CheckVector(ctx, ctx->input(4), layout.channels, "reserve_space_2"))
    return;
  const float* g = dy.data<float>();
  const float* in = x.data<float>();
  const float* scale = ctx->input(2).data<float>();
  const float* mean = ctx->input(3).data<float>();
  const float* variance = ctx->input(4).data<float>();
  std::vector<double> inv(channels), sum_dy(channels, 0), sum_dy_xhat(channels, 0);
  for (size_t c = 0; c < channels; ++c) inv[c] = 1.0 / std::sqrt(static_cast<double>(variance[c]) + p.epsilon);
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    const auto c = static_cast<size_t>(layout.ChannelOf(i));
    sum_dy[c] += g[i];
    sum_dy_xhat[c] += g[i] * (in[i] - mean[c]) * inv[c];
  }
  Tensor* dx = ctx->allocate_output(0, DT_FLOAT, x.shape());
  if (dx == nullptr) return;
  float* out = dx->data<float>();
  const double m = static_cast<double>(std::max<int64_t>(layout.count, 1));
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    const auto c = static_cast<size_t>(layout.ChannelOf(i));
    if (p.is_training) {
      const double xhat = (in[i] - mean[c]) * inv[c];
      out[i] = static_cast<float>(scale[c] * inv[c] * (g[i] - sum_dy[c] / m - xhat * sum_dy_xhat[c] / m));
    } else {
      out[i] = static_cast<float>(scale[c] * inv[c] * g[i]);
    }
  }
  ctx->set_output(1, FloatVector(sum_dy_xhat));
  ctx->set_output(2, FloatVector(sum_dy));
  ctx->set_output(3, Tensor::Vector<float>({}));
  ctx->set_output(4, Tensor::Vector<float>({}));
}

KernelFactory BatchNormKernelFactory(bool grad) {
  return [grad](OpKernelConstruction& construction) -> StatusOr<std::unique_ptr<OpKernel>> {
    BatchNormParams params;
    CLAB_RETURN_IF_ERROR(ReadBatchNormParams(construction, &params));
    if (grad)
      return LambdaKernel([params](OpKernelContext* ctx) { FusedBatchNormGradCompute(ctx, params); })(construction);
    return LambdaKernel([params](OpKernelContext* ctx) { FusedBatchNormCompute(ctx, params); })(construction);
  };
}

// The channel count of a rank-4 shape in the node's data_format, or -1.
int64_t ChannelsOf(const ShapeContext& ctx, const PartialShape& shape) {
  std::string format = "NHWC";
  ctx.GetAttr("data_format", &format).IgnoreError();
  if (!shape.known_rank() || shape.rank() != 4) return -1;
  return shape.dim(format == "NCHW" ? 1 : 3);
}

Status BatchNormShape(ShapeContext& ctx, bool grad) {
  const PartialShape& x = ctx.input_shape(grad ? 1 : 0);
  if (x.known_rank() && x.rank() != 4) return ctx.MakeError(absl::StrCat("x must be rank 4 but is rank ", x.rank()));
  int64_t channels = ChannelsOf(ctx, x);
  if (channels < 0 && ctx.input_shape(grad ? 2 : 1).known_rank() && ctx.input_shape(grad ? 2 : 1).rank() == 1)
    channels = ctx.input_shape(grad ? 2 : 1).dim(0);
  ctx.set_output(0, x.known_rank() ? x : PartialShape::UnknownOfRank(4));
  for (int i = 1; i < 5; ++i) ctx.set_output(i, PartialShape(std::vector<int64_t>{grad && i > 2 ? 0 : channels}));
  return OkStatus();
}

}  // namespace

void RegisterNnNormOps(OpRegistry& registry) {
  auto lrn_attrs = [](OpDefBuilder& builder) -> OpDefBuilder& {
    return builder.Attr("depth_radius: int = 5")
        .Attr("bias: float = 1")
        .Attr("alpha: float = 1")
        .Attr("beta: float = 0.5")
        .Attr("T: {half, bfloat16, float} = DT_FLOAT");
  };
  lrn_attrs(registry.Register("LRN").Input("input: T").Output("output: T"))
      .SetShapeFn(Rank4Shape)
      .Kernel("CPU", LrnKernelFactory(false))
      .Summary("Local response normalisation across the channels (last axis) of a 4-D input.")
      .Group("nn");
  lrn_attrs(registry.Register("LRNGrad")
                .Input("input_grads: T")
                .Input("input_image: T")
                .Input("output_image: T")
                .Output("output: T"))
      .SetShapeFn(Rank4Shape)
      .Kernel("CPU", LrnKernelFactory(true))
      .Summary("The gradient of LRN given the forward input and output.")
      .Group("nn");
  registry.Register("FusedBatchNorm")
      .Input("x: T")
      .Input("scale: T")
      .Input("offset: T")
      .Input("mean: T")
      .Input("variance: T")
      .Output("y: T")
      .Output("batch_mean: T")
      .Output("batch_variance: T")
      .Output("reserve_space_1: T")
      .Output("reserve_space_2: T")
      .Attr("T: {float}")
      .Attr("epsilon: float = 0.0001")
      .Attr("data_format: string = 'NHWC'")
      .Attr("is_training: bool = true")
      .SetShapeFn([](ShapeContext& ctx) { return BatchNormShape(ctx, false); })
      .Kernel("CPU", BatchNormKernelFactory(false))
      .Summary("Batch normalisation per channel of a 4-D NHWC or NCHW input.")
      .Group("nn");
  registry.Register("FusedBatchNormGrad")
      .Input("y_backprop: T")
      .Input("x: T")
      .Input("scale: T")
      .Input("reserve_space_1: T")
      .Input("reserve_space_2: T")
      .Output("x_backprop: T")
      .Output("scale_backprop: T")
      .Output("offset_backprop: T")
      .Output("reserve_space_3: T")
      .Output("reserve_space_4: T")
      .Attr("T: {float}")
      .Attr("epsilon: float = 0.0001")
      .Attr("data_format: string = 'NHWC'")
      .Attr("is_training: bool = true")
      .SetShapeFn([](ShapeContext& ctx) { return BatchNormShape(ctx, true); })
      .Kernel("CPU", BatchNormKernelFactory(true))
      .Summary("The gradients of FusedBatchNorm's x, scale and offset.")
      .Group("nn");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kNnNormOpFamily("nn norm", RegisterNnNormOps);

}  // namespace clab
