// Max pooling on NHWC images, as TensorFlow's MaxPool (ksize and strides [1, h, w, 1],
// SAME or VALID padding; padded positions never win), and MaxPoolGrad, which routes each
// output's gradient to the input element that was the window's maximum: the first one in
// row-major window order when several are equal, as TensorFlow's CPU kernel does. The
// maximum is found again from orig_input.
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

template <typename T>
class MaxPoolKernel : public OpKernel {
 public:
  MaxPoolKernel(bool gradient, WindowAttrs attrs) : gradient_(gradient), attrs_(std::move(attrs)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    auto geometry = spatial::MakeGeometry(attrs_, input.shape(), attrs_.ksize[1], attrs_.ksize[2]);
    if (!geometry.ok()) {
      ctx->SetStatus(KernelInvalidArgument(ctx, ctx->node().op(), ": ", geometry.status().message()));
      return;
    }
    const Geometry& g = *geometry;
    if (gradient_) {
      for (int i : {1, 2}) {
        if (!(ctx->input(i).shape() == g.OutputShape())) {
          ctx->SetStatus(KernelInvalidArgument(ctx, "MaxPoolGrad: ", i == 1 ? "orig_output " : "grad ",
                                               ctx->input(i).shape().DebugString(), " does not match the output ",
                                               g.OutputShape().DebugString(), " of pooling orig_input ",
                                               input.shape().DebugString()));
          return;
        }
      }
    }
    Tensor* output = ctx->allocate_output(0, input.dtype(), gradient_ ? g.InputShape() : g.OutputShape());
    if (output == nullptr || output->NumElements() == 0) return;
    const int64_t image_size = g.in_h * g.in_w * g.in_c, out_size = g.out_h * g.out_w * g.in_c;
    const T* in = input.data<T>();
    T* out = output->data<T>();
    const double cycles = static_cast<double>(out_size * g.k_h * g.k_w) * 2.0;
    if (!gradient_) {
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

 private:
  const bool gradient_;
  const WindowAttrs attrs_;
};

// MaxPool: [batch, out_h, out_w, channels]; MaxPoolGrad: the shape of orig_input.
Status MaxPoolShape(ShapeContext& c, bool gradient) {
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
      .SetShapeFn([](ShapeContext& c) { return MaxPoolShape(c, false); })
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
      .SetShapeFn([](ShapeContext& c) { return MaxPoolShape(c, true); })
      .Kernel("CPU", spatial::WindowKernelFactory<MaxPoolKernel>(/*gradient=*/true, /*pooling=*/true))
      .Summary("The gradient of MaxPool: each output's gradient goes to its window's maximum.")
      .Group("nn");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kPoolOpFamily("pool", RegisterPoolOps);

}  // namespace clab
