// Pooling on NHWC images, as TensorFlow's MaxPool (ksize and strides [1, h, w, 1], SAME or
// VALID padding; padded positions never win), and MaxPoolGrad, which routes each output's
// gradient to the input element that was the window's maximum: the first one in row-major
// window order when several are equal, as TensorFlow's CPU kernel does. The maximum is
// found again from orig_input. MaxPoolV2 and MaxPoolGradV2 take ksize and strides as
// inputs instead of attrs. AvgPool averages each window over the input elements it covers
// (padding is not counted), and AvgPoolGrad shares each output's gradient equally among
// them.
#include "ops/MathOpsInternal.h"

#include "ops/SpatialWindow.h"

#include <limits>

namespace clab {
namespace {

using math_internal::KernelInvalidArgument;
using spatial::DimOf;
using spatial::Geometry;
using spatial::WindowAttrs;

// The window of output (oy, ox) clipped to the image: rows [y_begin, y_end), columns [x_begin, x_end).
struct Window {
  int64_t y_begin, y_end, x_begin, x_end;
};

Window WindowAt(const Geometry& g, int64_t oy, int64_t ox) {
  const int64_t y = oy * g.stride_h - g.pad_top, x = ox * g.stride_w - g.pad_left;
  return Window{std::max<int64_t>(y, 0), std::min(y + g.k_h, g.in_h), std::max<int64_t>(x, 0),
                std::min(x + g.k_w, g.in_w)};
}

template <typename T>
void MaxPoolImage(const T* image, const Geometry& g, T* out) {
  for (int64_t oy = 0; oy < g.out_h; ++oy) {
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      const Window w = WindowAt(g, oy, ox);
      T* best = out + (oy * g.out_w + ox) * g.in_c;
      std::fill_n(best, g.in_c, std::numeric_limits<T>::lowest());
      for (int64_t y = w.y_begin; y < w.y_end; ++y)
        for (int64_t x = w.x_begin; x < w.x_end; ++x) {
          const T* pixel = image + (y * g.in_w + x) * g.in_c;
          for (int64_t c = 0; c < g.in_c; ++c) best[c] = std::max(best[c], pixel[c]);
        }
    }
  }
}

// Adds each output's gradient onto its window's first maximum in `d_image`.
template <typename T>
void MaxPoolGradImage(const T* image, const T* grad, const Geometry& g, T* d_image) {
  std::vector<int64_t> argmax(static_cast<size_t>(g.in_c));
  for (int64_t oy = 0; oy < g.out_h; ++oy) {
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      const Window w = WindowAt(g, oy, ox);
      if (w.y_begin >= w.y_end || w.x_begin >= w.x_end) continue;
      const int64_t first = (w.y_begin * g.in_w + w.x_begin) * g.in_c;
      for (int64_t c = 0; c < g.in_c; ++c) argmax[static_cast<size_t>(c)] = first + c;
      for (int64_t y = w.y_begin; y < w.y_end; ++y)
        for (int64_t x = w.x_begin; x < w.x_end; ++x) {
          const int64_t pixel = (y * g.in_w + x) * g.in_c;
          for (int64_t c = 0; c < g.in_c; ++c)
            if (image[pixel + c] > image[argmax[static_cast<size_t>(c)]]) argmax[static_cast<size_t>(c)] = pixel + c;
        }
      const T* g_out = grad + (oy * g.out_w + ox) * g.in_c;
      for (int64_t c = 0; c < g.in_c; ++c) d_image[argmax[static_cast<size_t>(c)]] += g_out[c];
    }
  }
}

// MaxPool (input 0: the images) or MaxPoolGrad (inputs orig_input, orig_output, grad).
template <typename T>
void RunMaxPool(OpKernelContext* ctx, const WindowAttrs& attrs, bool gradient) {
  const Tensor& input = ctx->input(0);
  auto geometry = spatial::MakeGeometry(attrs, input.shape(), attrs.ksize[1], attrs.ksize[2]);
  if (!geometry.ok()) {
    ctx->SetStatus(KernelInvalidArgument(ctx, ctx->node().op(), ": ", geometry.status().message()));
    return;
  }
  const Geometry& g = *geometry;
  if (gradient) {
    for (int i : {1, 2}) {
      if (!(ctx->input(i).shape() == g.OutputShape())) {
        ctx->SetStatus(KernelInvalidArgument(ctx, ctx->node().op(), ": ", i == 1 ? "orig_output " : "grad ",
                                             ctx->input(i).shape().DebugString(), " does not match the output ",
                                             g.OutputShape().DebugString(), " of pooling orig_input ",
                                             input.shape().DebugString()));
        return;
      }
    }
  }
  Tensor* output = ctx->allocate_output(0, input.dtype(), gradient ? g.InputShape() : g.OutputShape());
  if (output == nullptr || output->NumElements() == 0) return;
  const int64_t image_size = g.in_h * g.in_w * g.in_c, out_size = g.out_h * g.out_w * g.in_c;
  const T* in = input.data<T>();
  T* out = output->data<T>();
  const double cycles = static_cast<double>(out_size * g.k_h * g.k_w) * 2.0;
  if (!gradient) {
    math_internal::ParallelForRange(ctx, g.batch, cycles, [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n) MaxPoolImage(in + n * image_size, g, out + n * out_size);
    });
    return;
  }
  std::fill_n(out, output->NumElements(), T(0));
  const T* grad = ctx->input(2).data<T>();
  math_internal::ParallelForRange(ctx, g.batch, cycles, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n)
      MaxPoolGradImage(in + n * image_size, grad + n * out_size, g, out + n * image_size);
  });
}

template <typename T>
class MaxPoolKernel : public OpKernel {
 public:
  MaxPoolKernel(bool gradient, WindowAttrs attrs) : gradient_(gradient), attrs_(std::move(attrs)) {}
  void Compute(OpKernelContext* ctx) override { RunMaxPool<T>(ctx, attrs_, gradient_); }

 private:
  const bool gradient_;
  const WindowAttrs attrs_;
};

// A 4-element int32 input (MaxPoolV2's ksize and strides) as int64 values.
StatusOr<std::vector<int64_t>> ReadWindowInput(const Tensor& t, const char* what) {
  if (t.dtype() != DT_INT32 || t.shape().rank() != 1)
    return errors::InvalidArgument(what, " must be an int32 vector, got ", DataTypeName(t.dtype()), " ",
                                   t.shape().DebugString());
  return std::vector<int64_t>(t.data<int32_t>(), t.data<int32_t>() + t.NumElements());
}

// MaxPoolV2 (inputs: input, ksize, strides) and MaxPoolGradV2 (orig_input, orig_output,
// grad, ksize, strides).
template <typename T>
class MaxPoolV2Kernel : public OpKernel {
 public:
  explicit MaxPoolV2Kernel(bool gradient) : gradient_(gradient) {}

  void Compute(OpKernelContext* ctx) override {
    const int first = gradient_ ? 3 : 1;
    auto ksize = ReadWindowInput(ctx->input(first), "ksize");
    auto strides = ReadWindowInput(ctx->input(first + 1), "strides");
    StatusOr<WindowAttrs> attrs = !ksize.ok()     ? StatusOr<WindowAttrs>(ksize.status())
                                  : !strides.ok() ? StatusOr<WindowAttrs>(strides.status())
                                                  : spatial::PoolingWindowAttrs(ctx->node(), *ksize, *strides);
    if (!attrs.ok()) {
      ctx->SetStatus(KernelInvalidArgument(ctx, ctx->node().op(), ": ", attrs.status().message()));
      return;
    }
    RunMaxPool<T>(ctx, *attrs, gradient_);
  }

 private:
  const bool gradient_;
};

KernelFactory MaxPoolV2Factory(bool gradient) {
  return [gradient](OpKernelConstruction& construction) -> StatusOr<std::unique_ptr<OpKernel>> {
    switch (construction.output_type(0)) {
      case DT_FLOAT: return std::unique_ptr<OpKernel>(new MaxPoolV2Kernel<float>(gradient));
      case DT_DOUBLE: return std::unique_ptr<OpKernel>(new MaxPoolV2Kernel<double>(gradient));
      default:
        return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                       ") has no CPU kernel for type ", DataTypeName(construction.output_type(0)));
    }
  };
}

// ---- AvgPool -------------------------------------------------------------------------------

template <typename T>
void AvgPoolImage(const T* image, const Geometry& g, T* out) {
  for (int64_t oy = 0; oy < g.out_h; ++oy) {
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      const Window w = WindowAt(g, oy, ox);
      T* mean = out + (oy * g.out_w + ox) * g.in_c;
      std::fill_n(mean, g.in_c, T(0));
      for (int64_t y = w.y_begin; y < w.y_end; ++y)
        for (int64_t x = w.x_begin; x < w.x_end; ++x) {
          const T* pixel = image + (y * g.in_w + x) * g.in_c;
          for (int64_t c = 0; c < g.in_c; ++c) mean[c] += pixel[c];
        }
      const T count = static_cast<T>((w.y_end - w.y_begin) * (w.x_end - w.x_begin));
      if (count > T(0))
        for (int64_t c = 0; c < g.in_c; ++c) mean[c] /= count;
    }
  }
}

template <typename T>
void AvgPoolGradImage(const T* grad, const Geometry& g, T* d_image) {
  for (int64_t oy = 0; oy < g.out_h; ++oy) {
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      const Window w = WindowAt(g, oy, ox);
      const T count = static_cast<T>((w.y_end - w.y_begin) * (w.x_end - w.x_begin));
      if (count <= T(0)) continue;
      const T* g_out = grad + (oy * g.out_w + ox) * g.in_c;
      for (int64_t y = w.y_begin; y < w.y_end; ++y)
        for (int64_t x = w.x_begin; x < w.x_end; ++x) {
          T* pixel = d_image + (y * g.in_w + x) * g.in_c;
          for (int64_t c = 0; c < g.in_c; ++c) pixel[c] += g_out[c] / count;
        }
    }
  }
}

// AvgPool (input: the images) or AvgPoolGrad (inputs: orig_input_shape, grad).
template <typename T>
class AvgPoolKernel : public OpKernel {
 public:
  AvgPoolKernel(bool gradient, WindowAttrs attrs) : gradient_(gradient), attrs_(std::move(attrs)) {}

  void Compute(OpKernelContext* ctx) override {
    TensorShape input_shape = ctx->input(0).shape();
    if (gradient_) {
      const Tensor& sizes = ctx->input(0);
      if (sizes.dtype() != DT_INT32 || sizes.shape().rank() != 1 || sizes.NumElements() != 4) {
        ctx->SetStatus(KernelInvalidArgument(ctx,
                                             "AvgPoolGrad: orig_input_shape must be an int32 vector of 4 sizes, got ",
                                             DataTypeName(sizes.dtype()), " ", sizes.shape().DebugString()));
        return;
      }
      auto shape = TensorShape::FromDims(std::vector<int64_t>(sizes.data<int32_t>(), sizes.data<int32_t>() + 4));
      if (!shape.ok()) {
        ctx->SetStatus(KernelInvalidArgument(ctx, "AvgPoolGrad: orig_input_shape: ", shape.status().message()));
        return;
      }
      input_shape = *shape;
    }
    auto geometry = spatial::MakeGeometry(attrs_, input_shape, attrs_.ksize[1], attrs_.ksize[2]);
    if (!geometry.ok()) {
      ctx->SetStatus(KernelInvalidArgument(ctx, ctx->node().op(), ": ", geometry.status().message()));
      return;
    }
    const Geometry& g = *geometry;
    if (gradient_ && !(ctx->input(1).shape() == g.OutputShape())) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "AvgPoolGrad: grad ", ctx->input(1).shape().DebugString(),
                                           " does not match the output ", g.OutputShape().DebugString(),
                                           " of pooling an input of shape ", input_shape.DebugString()));
      return;
    }
    Tensor* output = ctx->allocate_output(0, DataTypeOf<T>::value, gradient_ ? g.InputShape() : g.OutputShape());
    if (output == nullptr || output->NumElements() == 0) return;
    const int64_t image_size = g.in_h * g.in_w * g.in_c, out_size = g.out_h * g.out_w * g.in_c;
    T* out = output->data<T>();
    const double cycles = static_cast<double>(out_size * g.k_h * g.k_w) * 2.0;
    if (!gradient_) {
      const T* in = ctx->input(0).data<T>();
      math_internal::ParallelForRange(ctx, g.batch, cycles, [&](int64_t begin, int64_t end) {
        for (int64_t n = begin; n < end; ++n) AvgPoolImage(in + n * image_size, g, out + n * out_size);
      });
      return;
    }
    std::fill_n(out, output->NumElements(), T(0));
    const T* grad = ctx->input(1).data<T>();
    math_internal::ParallelForRange(ctx, g.batch, cycles, [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n) AvgPoolGradImage(grad + n * out_size, g, out + n * image_size);
    });
  }

 private:
  const bool gradient_;
  const WindowAttrs attrs_;
};

// MaxPool and AvgPool: [batch, out_h, out_w, channels]; MaxPoolGrad: the shape of orig_input.
Status PoolShape(ShapeContext& c, bool gradient) {
  CLAB_ASSIGN_OR_RETURN(const WindowAttrs attrs, spatial::ShapeFnWindowAttrs(c, /*pooling=*/true));
  for (int i = 0; i < c.num_inputs(); ++i)
    CLAB_RETURN_IF_ERROR(spatial::CheckRank4(c, i, i == 0 ? "input (NHWC)" : i == 1 ? "orig_output" : "grad"));
  const PartialShape& input = c.input_shape(0);
  if (gradient) {
    c.set_output(0, input.known_rank() ? input : PartialShape::UnknownOfRank(4));
    return OkStatus();
  }
  return spatial::SetWindowedOutputShape(c, attrs, attrs.ksize[1], attrs.ksize[2], DimOf(input, 3));
}

// MaxPoolV2: the windowed shape when ksize and strides are constants, else rank 4 with the
// batch and channels of the input. MaxPoolGradV2: the shape of orig_input.
Status MaxPoolV2Shape(ShapeContext& c, bool gradient) {
  const int images = gradient ? 3 : 1;
  for (int i = 0; i < images; ++i)
    CLAB_RETURN_IF_ERROR(spatial::CheckRank4(c, i, i == 0 ? "input (NHWC)" : i == 1 ? "orig_output" : "grad"));
  const PartialShape& input = c.input_shape(0);
  if (gradient) {
    c.set_output(0, input.known_rank() ? input : PartialShape::UnknownOfRank(4));
    return OkStatus();
  }
  const Tensor* ksize = c.input_constant(images);
  const Tensor* strides = c.input_constant(images + 1);
  if (ksize == nullptr || strides == nullptr) {
    c.set_output(0, PartialShape({DimOf(input, 0), -1, -1, DimOf(input, 3)}));
    return OkStatus();
  }
  auto k = ReadWindowInput(*ksize, "ksize");
  auto s = ReadWindowInput(*strides, "strides");
  if (!k.ok()) return c.MakeError(std::string(k.status().message()));
  if (!s.ok()) return c.MakeError(std::string(s.status().message()));
  auto attrs = spatial::PoolingWindowAttrs(c.node(), *k, *s);
  if (!attrs.ok()) return c.MakeError(std::string(attrs.status().message()));
  return spatial::SetWindowedOutputShape(c, *attrs, attrs->ksize[1], attrs->ksize[2], DimOf(input, 3));
}

// AvgPoolGrad: the value of orig_input_shape when it is a constant, else rank 4.
Status AvgPoolGradShape(ShapeContext& c) {
  CLAB_RETURN_IF_ERROR(spatial::ShapeFnWindowAttrs(c, /*pooling=*/true).status());
  CLAB_RETURN_IF_ERROR(spatial::CheckRank4(c, 1, "grad"));
  const Tensor* sizes = c.input_constant(0);
  if (sizes == nullptr || sizes->dtype() != DT_INT32 || sizes->NumElements() != 4) {
    c.set_output(0, PartialShape::UnknownOfRank(4));
    return OkStatus();
  }
  c.set_output(0, PartialShape(std::vector<int64_t>(sizes->data<int32_t>(), sizes->data<int32_t>() + 4)));
  return OkStatus();
}

}  // namespace

void RegisterPoolOps(OpRegistry& registry) {
  registry.Register("MaxPool")
      .Input("input: T")
      .Output("output: T")
      .Attr("T: {float, double} = DT_FLOAT")
      .Attr("ksize: list(int) >= 4")
      .Attr("strides: list(int) >= 4")
      .Attr("padding: {'SAME', 'VALID'}")
      .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
      .SetShapeFn([](ShapeContext& c) { return PoolShape(c, false); })
      .Kernel("CPU", spatial::WindowKernelFactory<MaxPoolKernel>(/*gradient=*/false, /*pooling=*/true))
      .Summary("The maximum over each ksize window of NHWC images, moved by strides.")
      .Group("nn");
  registry.Register("MaxPoolGrad")
      .Input("orig_input: T")
      .Input("orig_output: T")
      .Input("grad: T")
      .Output("output: T")
      .Attr("ksize: list(int) >= 4")
      .Attr("strides: list(int) >= 4")
      .Attr("padding: {'SAME', 'VALID'}")
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
      .Attr("T: {float, double} = DT_FLOAT")
      .SetShapeFn([](ShapeContext& c) { return PoolShape(c, true); })
      .Kernel("CPU", spatial::WindowKernelFactory<MaxPoolKernel>(/*gradient=*/true, /*pooling=*/true))
      .Summary("The gradient of MaxPool: each output's gradient goes to its window's maximum.")
      .Group("nn");
  registry.Register("MaxPoolV2")
      .Input("input: T")
      .Input("ksize: int32")
      .Input("strides: int32")
      .Output("output: T")
      .Attr("T: {float, double} = DT_FLOAT")
      .Attr("padding: {'SAME', 'VALID'}")
      .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
      .SetShapeFn([](ShapeContext& c) { return MaxPoolV2Shape(c, false); })
      .Kernel("CPU", MaxPoolV2Factory(/*gradient=*/false))
      .Summary("MaxPool with ksize and strides given as inputs.")
      .Group("nn");
  registry.Register("MaxPoolGradV2")
      .Input("orig_input: T")
      .Input("orig_output: T")
      .Input("grad: T")
      .Input("ksize: int32")
      .Input("strides: int32")
      .Output("output: T")
      .Attr("padding: {'SAME', 'VALID'}")
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
      .Attr("T: {float, double} = DT_FLOAT")
      .SetShapeFn([](ShapeContext& c) { return MaxPoolV2Shape(c, true); })
      .Kernel("CPU", MaxPoolV2Factory(/*gradient=*/true))
      .Summary("The gradient of MaxPoolV2, with ksize and strides given as inputs.")
      .Group("nn");
  registry.Register("AvgPool")
      .Input("value: T")
      .Output("output: T")
      .Attr("ksize: list(int) >= 4")
      .Attr("strides: list(int) >= 4")
      .Attr("padding: {'SAME', 'VALID'}")
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
      .Attr("T: {float, double}")
      .SetShapeFn([](ShapeContext& c) { return PoolShape(c, false); })
      .Kernel("CPU", spatial::WindowKernelFactory<AvgPoolKernel>(/*gradient=*/false, /*pooling=*/true))
      .Summary("The mean over each ksize window of NHWC images (padding not counted), moved by strides.")
      .Group("nn");
  registry.Register("AvgPoolGrad")
      .Input("orig_input_shape: int32")
      .Input("grad: T")
      .Output("output: T")
      .Attr("ksize: list(int) >= 4")
      .Attr("strides: list(int) >= 4")
      .Attr("padding: {'SAME', 'VALID'}")
      .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
      .Attr("T: {float, double}")
      .SetShapeFn(AvgPoolGradShape)
      .Kernel("CPU", spatial::WindowKernelFactory<AvgPoolKernel>(/*gradient=*/true, /*pooling=*/true))
      .Summary("The gradient of AvgPool: each output's gradient shared equally by its window's inputs.")
      .Group("nn");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kPoolOpFamily("pool", RegisterPoolOps);

}  // namespace clab
