// 2-D convolution on NHWC images, as TensorFlow's Conv2D (filter [kh, kw, in, out]) and its
// two gradients, Conv2DBackpropInput and Conv2DBackpropFilter.
//
// All three unroll the windows into a patch matrix (im2col): one row per output position,
// kh * kw * in columns in the filter's own (ky, kx, c) order, so that with the filter seen as
// a [kh * kw * in, out] matrix
//   output       = patches * filter
//   d patches    = d output * filter^T      (scattered back onto the image: d input)
//   d filter     = patches^T * d output
// are plain matrix products. Images are processed in groups whose patch matrix stays small;
// the groups are fixed by the shapes alone, so results do not depend on the thread count.
#include "ops/MathOpsInternal.h"

#include "clab/core/TensorEigen.h"
#include "ops/SpatialWindow.h"

#include <absl/strings/str_join.h>

#include <cstring>

namespace clab {
namespace {

using math_internal::KernelInvalidArgument;
using spatial::DimOf;
using spatial::Geometry;
using spatial::WindowAttrs;

enum class ConvPass { kForward, kBackpropInput, kBackpropFilter };

// At most this many patch-matrix elements per group of images (1 MiB of floats).
constexpr int64_t kMaxPatchElements = int64_t{1} << 18;

// The rows of one image's patch matrix: [out_h * out_w, k_h * k_w * in_c]; positions of a
// window that fall in the padding read as zero.
template <typename T>
void ImageToPatches(const T* image, const Geometry& g, T* patches) {
  const int64_t row_length = g.k_h * g.k_w * g.in_c;
  for (int64_t oy = 0; oy < g.out_h; ++oy) {
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      T* row = patches + (oy * g.out_w + ox) * row_length;
      for (int64_t ky = 0; ky < g.k_h; ++ky) {
        const int64_t iy = oy * g.stride_h - g.pad_top + ky;
        for (int64_t kx = 0; kx < g.k_w; ++kx) {
          const int64_t ix = ox * g.stride_w - g.pad_left + kx;
          T* cell = row + (ky * g.k_w + kx) * g.in_c;
          if (iy < 0 || iy >= g.in_h || ix < 0 || ix >= g.in_w) std::fill_n(cell, g.in_c, T(0));
          else std::copy_n(image + (iy * g.in_w + ix) * g.in_c, g.in_c, cell);
        }
      }
    }
  }
}

// The adjoint of ImageToPatches: adds each patch element onto the image element it was read
// from (padding positions are dropped).
template <typename T>
void AddPatchesToImage(const T* patches, const Geometry& g, T* image) {
  const int64_t row_length = g.k_h * g.k_w * g.in_c;
  for (int64_t oy = 0; oy < g.out_h; ++oy) {
    for (int64_t ox = 0; ox < g.out_w; ++ox) {
      const T* row = patches + (oy * g.out_w + ox) * row_length;
      for (int64_t ky = 0; ky < g.k_h; ++ky) {
        const int64_t iy = oy * g.stride_h - g.pad_top + ky;
        if (iy < 0 || iy >= g.in_h) continue;
        for (int64_t kx = 0; kx < g.k_w; ++kx) {
          const int64_t ix = ox * g.stride_w - g.pad_left + kx;
          if (ix < 0 || ix >= g.in_w) continue;
          const T* cell = row + (ky * g.k_w + kx) * g.in_c;
          T* target = image + (iy * g.in_w + ix) * g.in_c;
          for (int64_t c = 0; c < g.in_c; ++c) target[c] += cell[c];
        }
      }
    }
  }
}

std::string DimsText(const std::vector<int64_t>& dims) { return StrCat("[", absl::StrJoin(dims, ","), "]"); }

// The shape a size vector input (input_sizes, filter_sizes) describes.
StatusOr<TensorShape> ShapeFromSizes(const Tensor& sizes, std::string_view what) {
  if (sizes.shape().rank() != 1 || sizes.NumElements() != 4 || (sizes.dtype() != DT_INT32 && sizes.dtype() != DT_INT64))
    return errors::InvalidArgument(what, " must be an int32 vector of 4 sizes, got ", DataTypeName(sizes.dtype()), " ",
                                   sizes.shape().DebugString());
  std::vector<int64_t> dims(4);
  for (int i = 0; i < 4; ++i) {
    dims[static_cast<size_t>(i)] = sizes.dtype() == DT_INT64 ? sizes.data<int64_t>()[i] : sizes.data<int32_t>()[i];
    if (dims[static_cast<size_t>(i)] < 0)
      return errors::InvalidArgument(what, " must be non-negative, got ", DimsText(dims));
  }
  return TensorShape(dims);
}

// The geometry of a convolution of `input` by `filter`, with the checks TensorFlow makes.
StatusOr<Geometry> ConvGeometry(const WindowAttrs& attrs, const TensorShape& input, const TensorShape& filter) {
  if (input.rank() != 4)
    return errors::InvalidArgument("input must be 4-dimensional (NHWC), got shape ", input.DebugString());
  if (filter.rank() != 4)
    return errors::InvalidArgument(
        "filter must be 4-dimensional ([height, width, in_channels, out_channels]), got shape ", filter.DebugString());
  if (input.dim(3) != filter.dim(2))
    return errors::InvalidArgument("input depth ", input.dim(3), " does not match the filter's in_channels ",
                                   filter.dim(2), ": input ", input.DebugString(), ", filter ", filter.DebugString());
  CLAB_ASSIGN_OR_RETURN(Geometry g, spatial::MakeGeometry(attrs, input, filter.dim(0), filter.dim(1)));
  g.out_c = filter.dim(3);
  return g;
}

template <typename T>
class ConvKernel : public OpKernel {
 public:
  ConvKernel(ConvPass pass, WindowAttrs attrs) : pass_(pass), attrs_(std::move(attrs)) {}

  void Compute(OpKernelContext* ctx) override {
    auto geometry = Prepare(ctx);
    if (!geometry.ok()) {
      ctx->SetStatus(KernelInvalidArgument(ctx, ctx->node().op(), ": ", geometry.status().message()));
      return;
    }
    const Geometry& g = *geometry;
    const int64_t positions = g.out_h * g.out_w;
    const int64_t row_length = g.k_h * g.k_w * g.in_c;
    const int64_t group = std::max<int64_t>(1, kMaxPatchElements / std::max<int64_t>(1, positions * row_length));
    const int64_t groups = (g.batch + group - 1) / group;
    const double cycles_per_group =
        2.0 * static_cast<double>(group * positions * row_length * std::max<int64_t>(1, g.out_c));
    switch (pass_) {
      case ConvPass::kForward: return Forward(ctx, g, group, groups, cycles_per_group);
      case ConvPass::kBackpropInput: return BackpropInput(ctx, g, group, groups, cycles_per_group);
      case ConvPass::kBackpropFilter: return BackpropFilter(ctx, g, group, groups, cycles_per_group);
    }
  }

 private:
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  // Checks the inputs of this pass and gives the convolution's geometry.
  StatusOr<Geometry> Prepare(OpKernelContext* ctx) const {
    if (pass_ == ConvPass::kForward) return ConvGeometry(attrs_, ctx->input(0).shape(), ctx->input(1).shape());
    TensorShape input, filter;
    if (pass_ == ConvPass::kBackpropInput) {
      CLAB_ASSIGN_OR_RETURN(input, ShapeFromSizes(ctx->input(0), "input_sizes"));
      filter = ctx->input(1).shape();
    } else {
      input = ctx->input(0).shape();
      CLAB_ASSIGN_OR_RETURN(filter, ShapeFromSizes(ctx->input(1), "filter_sizes"));
    }
    CLAB_ASSIGN_OR_RETURN(const Geometry g, ConvGeometry(attrs_, input, filter));
    const TensorShape& out_backprop = ctx->input(2).shape();
    if (!(out_backprop == g.OutputShape()))
      return errors::InvalidArgument("out_backprop ", out_backprop.DebugString(), " does not match the output ",
                                     g.OutputShape().DebugString(), " of input ", input.DebugString(),
                                     " convolved by filter ", filter.DebugString());
    return g;
  }

  void Forward(OpKernelContext* ctx, const Geometry& g, int64_t group, int64_t groups, double cycles) const {
    Tensor* output = ctx->allocate_output(0, ctx->input(0).dtype(), g.OutputShape());
    if (output == nullptr || output->NumElements() == 0) return;
    const T* input = ctx->input(0).data<T>();
    const T* filter = ctx->input(1).data<T>();
    T* out = output->data<T>();
    const int64_t positions = g.out_h * g.out_w, row_length = g.k_h * g.k_w * g.in_c;
    const int64_t image_size = g.in_h * g.in_w * g.in_c;
    math_internal::ParallelForRange(ctx, groups, cycles, [&](int64_t begin, int64_t end) {
      std::vector<T> patches(static_cast<size_t>(group * positions * row_length));
      ConstEigenMatrixMap<T> filter_matrix(filter, row_length, g.out_c);
      for (int64_t index = begin; index < end; ++index) {
        const int64_t first = index * group, count = std::min(group, g.batch - first);
        for (int64_t n = 0; n < count; ++n)
          ImageToPatches(input + (first + n) * image_size, g, patches.data() + n * positions * row_length);
        ConstEigenMatrixMap<T> patch_matrix(patches.data(), count * positions, row_length);
        EigenMatrixMap<T>(out + first * positions * g.out_c, count * positions, g.out_c).noalias() =
            patch_matrix * filter_matrix;
      }
    });
  }

  void BackpropInput(OpKernelContext* ctx, const Geometry& g, int64_t group, int64_t groups, double cycles) const {
    Tensor* output = ctx->allocate_output(0, ctx->input(1).dtype(), g.InputShape());
    if (output == nullptr || output->NumElements() == 0) return;
    T* d_input = output->data<T>();
    std::fill_n(d_input, output->NumElements(), T(0));
    const T* filter = ctx->input(1).data<T>();
    const T* d_out = ctx->input(2).data<T>();
    const int64_t positions = g.out_h * g.out_w, row_length = g.k_h * g.k_w * g.in_c;
    const int64_t image_size = g.in_h * g.in_w * g.in_c;
    if (positions * row_length == 0) return;
    math_internal::ParallelForRange(ctx, groups, cycles, [&](int64_t begin, int64_t end) {
      Matrix d_patches;
      ConstEigenMatrixMap<T> filter_matrix(filter, row_length, g.out_c);
      for (int64_t index = begin; index < end; ++index) {
        const int64_t first = index * group, count = std::min(group, g.batch - first);
        ConstEigenMatrixMap<T> d_out_matrix(d_out + first * positions * g.out_c, count * positions, g.out_c);
        d_patches.noalias() = d_out_matrix * filter_matrix.transpose();
        for (int64_t n = 0; n < count; ++n)
          AddPatchesToImage(d_patches.data() + n * positions * row_length, g, d_input + (first + n) * image_size);
      }
    });
  }

  void BackpropFilter(OpKernelContext* ctx, const Geometry& g, int64_t group, int64_t groups, double cycles) const {
    const TensorShape filter_shape({g.k_h, g.k_w, g.in_c, g.out_c});
    Tensor* output = ctx->allocate_output(0, ctx->input(0).dtype(), filter_shape);
    if (output == nullptr || output->NumElements() == 0) return;
    const int64_t positions = g.out_h * g.out_w, row_length = g.k_h * g.k_w * g.in_c;
    const int64_t image_size = g.in_h * g.in_w * g.in_c;
    const T* input = ctx->input(0).data<T>();
    const T* d_out = ctx->input(2).data<T>();
    // One partial sum per group, added in group order afterwards.
    std::vector<Matrix> partial(static_cast<size_t>(groups));
    math_internal::ParallelForRange(ctx, groups, cycles, [&](int64_t begin, int64_t end) {
      std::vector<T> patches(static_cast<size_t>(group * positions * row_length));
      for (int64_t index = begin; index < end; ++index) {
        const int64_t first = index * group, count = std::min(group, g.batch - first);
        for (int64_t n = 0; n < count; ++n)
          ImageToPatches(input + (first + n) * image_size, g, patches.data() + n * positions * row_length);
        ConstEigenMatrixMap<T> patch_matrix(patches.data(), count * positions, row_length);
        ConstEigenMatrixMap<T> d_out_matrix(d_out + first * positions * g.out_c, count * positions, g.out_c);
        partial[static_cast<size_t>(index)].noalias() = patch_matrix.transpose() * d_out_matrix;
      }
    });
    EigenMatrixMap<T> d_filter(output->data<T>(), row_length, g.out_c);
    d_filter.setZero();
    for (const Matrix& sum : partial) d_filter += sum;
  }

  const ConvPass pass_;
  const WindowAttrs attrs_;
};

// ---- Shape functions -----------------------------------------------------------------------

Status Conv2DShape(ShapeContext& c) {
  CLAB_ASSIGN_OR_RETURN(const WindowAttrs attrs, spatial::ShapeFnWindowAttrs(c, /*pooling=*/false));
  CLAB_RETURN_IF_ERROR(spatial::CheckRank4(c, 0, "input (NHWC)"));
  CLAB_RETURN_IF_ERROR(spatial::CheckRank4(c, 1, "filter ([height, width, in_channels, out_channels])"));
  const PartialShape& input = c.input_shape(0);
  const PartialShape& filter = c.input_shape(1);
  const int64_t depth = DimOf(input, 3), filter_depth = DimOf(filter, 2);
  if (depth >= 0 && filter_depth >= 0 && depth != filter_depth)
    return c.MakeError(StrCat("input depth ", depth, " does not match the filter's in_channels ", filter_depth));
  return spatial::SetWindowedOutputShape(c, attrs, DimOf(filter, 0), DimOf(filter, 1), DimOf(filter, 3));
}

// Conv2DBackpropInput and Conv2DBackpropFilter: the output has the shape that the sizes
// input (`sizes_input`) holds, when it is a constant.
Status ConvBackpropShape(ShapeContext& c, int sizes_input) {
  CLAB_RETURN_IF_ERROR(spatial::ShapeFnWindowAttrs(c, /*pooling=*/false).status());
  CLAB_RETURN_IF_ERROR(spatial::CheckRank4(c, sizes_input == 0 ? 1 : 0, sizes_input == 0 ? "filter" : "input"));
  CLAB_RETURN_IF_ERROR(spatial::CheckRank4(c, 2, "out_backprop"));
  const PartialShape& sizes = c.input_shape(sizes_input);
  if (sizes.known_rank() && (sizes.rank() != 1 || (sizes.dim(0) >= 0 && sizes.dim(0) != 4)))
    return c.MakeError(StrCat(sizes_input == 0 ? "input_sizes" : "filter_sizes", " must be a vector of 4 sizes"));
  if (const Tensor* value = c.input_constant(sizes_input)) {
    auto shape = ShapeFromSizes(*value, sizes_input == 0 ? "input_sizes" : "filter_sizes");
    if (!shape.ok()) return c.MakeError(std::string(shape.status().message()));
    c.set_output(0, PartialShape(*shape));
  } else {
    c.set_output(0, PartialShape::UnknownOfRank(4));
  }
  return OkStatus();
}

}  // namespace

void RegisterConvOps(OpRegistry& registry) {
  // Attrs as TensorFlow 1.15 declares them, so that its graphs load; the kernels take NHWC,
  // dilations of 1 and SAME, VALID or EXPLICIT padding.
  auto conv_attrs = [](OpDefBuilder builder) {
    return builder.Attr("T: {float, double}")
        .Attr("strides: list(int)")
        .Attr("use_cudnn_on_gpu: bool = true")
        .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
        .Attr("explicit_paddings: list(int) = []")
        .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
        .Attr("dilations: list(int) = [1, 1, 1, 1]")
        .Group("nn");
  };
  conv_attrs(registry.Register("Conv2D").Input("input: T").Input("filter: T").Output("output: T"))
      .SetShapeFn(Conv2DShape)
      .Kernel("CPU", spatial::WindowKernelFactory<ConvKernel>(ConvPass::kForward, /*pooling=*/false))
      .Summary("2-D convolution of NHWC images by a [kh, kw, in, out] filter.");
  conv_attrs(registry.Register("Conv2DBackpropInput")
                 .Input("input_sizes: int32")
                 .Input("filter: T")
                 .Input("out_backprop: T")
                 .Output("output: T"))
      .SetShapeFn([](ShapeContext& c) { return ConvBackpropShape(c, 0); })
      .Kernel("CPU", spatial::WindowKernelFactory<ConvKernel>(ConvPass::kBackpropInput, /*pooling=*/false))
      .Summary("The gradient of Conv2D with respect to its input, of shape input_sizes.");
  conv_attrs(registry.Register("Conv2DBackpropFilter")
                 .Input("input: T")
                 .Input("filter_sizes: int32")
                 .Input("out_backprop: T")
                 .Output("output: T"))
      .SetShapeFn([](ShapeContext& c) { return ConvBackpropShape(c, 1); })
      .Kernel("CPU", spatial::WindowKernelFactory<ConvKernel>(ConvPass::kBackpropFilter, /*pooling=*/false))
      .Summary("The gradient of Conv2D with respect to its filter, of shape filter_sizes.");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kConvOpFamily("conv", RegisterConvOps);

}  // namespace clab
