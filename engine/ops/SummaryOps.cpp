// The summary ops of tf.summary.scalar, histogram, image and merge: ScalarSummary serialises
// a Summary protocol buffer with one simple_value per tag, HistogramSummary one histogram
// of all values, ImageSummary up to max_images PNG images, MergeSummary joins serialised
// Summaries into one. Their string outputs are what a summary writer puts into
// Event.summary, and what a graph's "summaries" collection names.
//
// Histograms use TensorFlow's default buckets, so TensorBoard shows them as TensorFlow's:
// limits +-1e-12 * 1.1^i below 1e20 on each side of 0, and +-DBL_MAX at the ends; a value
// goes to the first bucket whose limit is greater than it, and runs of empty buckets are
// written as one.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/io/PngEncoder.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "tensorflow/summary.pb.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <set>
#include <type_traits>

namespace clab::array_internal {
namespace {

void ScalarSummaryCompute(OpKernelContext* ctx) {
  const Tensor& tags = ctx->input(0);
  Tensor values;
  if (!ReadInput(ctx, 1, &values)) return;
  if (tags.dtype() != DT_STRING)
    return FailInvalidArgument(ctx, "tags must be strings, not ", DataTypeName(tags.dtype()));
  if (!(tags.shape() == values.shape()))
    return FailInvalidArgument(ctx, "tags and values are not the same shape: ", tags.shape().DebugString(),
                               " != ", values.shape().DebugString());
  if (!values.OnHost()) return FailInvalidArgument(ctx, "values must be in host memory");
  tensorflow::Summary summary;
  for (int64_t k = 0, k_end = tags.NumElements(); k < k_end; ++k) {
    auto* value = summary.add_value();
    value->set_tag(tags.data<std::string>()[k]);
    bool numeric = true;
    CLAB_SWITCH_POD_TYPES(values.dtype(), T, value->set_simple_value(static_cast<float>(values.data<T>()[k])),
                          numeric = false);
    if (!numeric) return FailInvalidArgument(ctx, "values of type ", DataTypeName(values.dtype()), " are not numbers");
  }
  Tensor out(DT_STRING, TensorShape{});
  out.data<std::string>()[0] = summary.SerializeAsString();
  ctx->set_output(0, std::move(out));
}

void MergeSummaryCompute(OpKernelContext* ctx) {
  tensorflow::Summary merged;
  std::set<std::string> tags;
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    const Tensor& in = ctx->input(i);
    for (int64_t k = 0, k_end = in.NumElements(); k < k_end; ++k) {
      tensorflow::Summary part;
      if (!part.ParseFromString(in.data<std::string>()[k]))
        return FailInvalidArgument(ctx, "input ", i, " element ", k, " is not a serialised Summary");
      for (const auto& value : part.value()) {
        if (!value.tag().empty() && !tags.insert(value.tag()).second)
          return FailInvalidArgument(ctx, "Duplicate tag ", value.tag(), " found in summary inputs");
        *merged.add_value() = value;
      }
    }
  }
  Tensor out(DT_STRING, TensorShape{});
  out.data<std::string>()[0] = merged.SerializeAsString();
  ctx->set_output(0, std::move(out));
}

// ---- HistogramSummary ----------------------------------------------------------------------

const std::vector<double>& DefaultBucketLimits() {
  static const std::vector<double> limits = [] {
    std::vector<double> positive;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) positive.push_back(v);
    positive.push_back(DBL_MAX);
    std::vector<double> all;
    for (auto it = positive.rbegin(); it != positive.rend(); ++it) all.push_back(-*it);
    all.push_back(0.0);
    all.insert(all.end(), positive.begin(), positive.end());
    return all;
  }();
  return limits;
}

void FillHistogram(const std::vector<double>& values, tensorflow::HistogramProto* histo) {
  const std::vector<double>& limits = DefaultBucketLimits();
  std::vector<double> counts(limits.size(), 0.0);
  double min = DBL_MAX, max = -DBL_MAX, sum = 0, sum_squares = 0;
  for (double v : values) {
    const size_t bucket = static_cast<size_t>(std::upper_bound(limits.begin(), limits.end(), v) - limits.begin());
    counts[std::min(bucket, limits.size() - 1)] += 1;
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v;
    sum_squares += v * v;
  }
  histo->set_min(min);
  histo->set_max(max);
  histo->set_num(static_cast<double>(values.size()));
  histo->set_sum(sum);
  histo->set_sum_squares(sum_squares);
  for (size_t i = 0; i < counts.size();) {
    double limit = limits[i], count = counts[i];
    ++i;
    if (count <= 0) {
      // A run of empty buckets is written as one, ending at the run's last limit.
      for (; i < counts.size() && counts[i] <= 0; ++i) limit = limits[i];
    }
    histo->add_bucket_limit(limit);
    histo->add_bucket(count);
  }
}

void HistogramSummaryCompute(OpKernelContext* ctx) {
  const Tensor& tag = ctx->input(0);
  Tensor values;
  if (!ReadInput(ctx, 1, &values)) return;
  if (tag.dtype() != DT_STRING || tag.NumElements() != 1)
    return FailInvalidArgument(ctx, "tag must be a scalar string, got ", DataTypeName(tag.dtype()), " ",
                               tag.shape().DebugString());
  std::vector<double> doubles(static_cast<size_t>(values.NumElements()));
  bool numeric = true;
  CLAB_SWITCH_POD_TYPES(values.dtype(), T,
                        std::transform(values.data<T>(), values.data<T>() + doubles.size(), doubles.begin(),
                                       [](T v) { return static_cast<double>(v); }),
                        numeric = false);
  if (!numeric) return FailInvalidArgument(ctx, "values of type ", DataTypeName(values.dtype()), " are not numbers");
  for (double v : doubles)
    if (!std::isfinite(v)) return FailInvalidArgument(ctx, "Nan in summary histogram for: ", ctx->name());
  tensorflow::Summary summary;
  auto* value = summary.add_value();
  value->set_tag(tag.data<std::string>()[0]);
  FillHistogram(doubles, value->mutable_histo());
  Tensor out(DT_STRING, TensorShape{});
  out.data<std::string>()[0] = summary.SerializeAsString();
  ctx->set_output(0, std::move(out));
}

// ---- ImageSummary --------------------------------------------------------------------------

// One image's pixels as bytes. Float images are scaled per image: all values >= 0 map
// [0, max] to [0, 255]; otherwise 0 maps to 128 and the larger of |min| and |max| to 127
// away from it. A pixel with a non-finite channel gets bad_color; finite pixels alone decide
// the scale.
template <typename T>
void ImageBytes(const T* values, int64_t pixels, int depth, const std::vector<uint8_t>& bad_color, uint8_t* out) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    std::copy(values, values + pixels * depth, out);
  } else {
    auto finite_pixel = [&](int64_t p) {
      for (int c = 0; c < depth; ++c)
        if (!std::isfinite(values[p * depth + c])) return false;
      return true;
    };
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t p = 0; p < pixels; ++p) {
      if (!finite_pixel(p)) continue;
      for (int c = 0; c < depth; ++c) {
        lo = std::min(lo, static_cast<double>(values[p * depth + c]));
        hi = std::max(hi, static_cast<double>(values[p * depth + c]));
      }
    }
    constexpr double kZeroThreshold = 1e-6;
    double scale = 0, offset = 0;
    if (lo < 0) {
      const double max_abs = std::max(std::abs(lo), std::abs(hi));
      scale = max_abs < kZeroThreshold ? 0.0 : 127.0 / max_abs;
      offset = 128.0;
    } else {
      scale = hi < kZeroThreshold ? 0.0 : 255.0 / hi;
    }
    for (int64_t p = 0; p < pixels; ++p) {
      const bool finite = finite_pixel(p);
      for (int c = 0; c < depth; ++c)
        out[p * depth + c] =
            finite ? static_cast<uint8_t>(static_cast<float>(values[p * depth + c]) * static_cast<float>(scale) +
                                          static_cast<float>(offset))
                   : bad_color[static_cast<size_t>(c)];
    }
  }
}

class ImageSummaryKernel : public OpKernel {
 public:
  ImageSummaryKernel(int64_t max_images, std::vector<uint8_t> bad_color)
      : max_images_(max_images), bad_color_(std::move(bad_color)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    Tensor images;
    if (!ReadInput(ctx, 1, &images)) return;
    if (tag.dtype() != DT_STRING || tag.NumElements() != 1)
      return FailInvalidArgument(ctx, "tag must be a scalar string, got ", DataTypeName(tag.dtype()), " ",
                                 tag.shape().DebugString());
    const TensorShape& shape = images.shape();
    if (shape.rank() != 4 || (shape.dim(3) != 1 && shape.dim(3) != 3 && shape.dim(3) != 4))
      return FailInvalidArgument(ctx, "Tensor must be 4-D with last dim 1, 3, or 4, not ", shape.DebugString());
    const int depth = static_cast<int>(shape.dim(3));
    if (static_cast<int>(bad_color_.size()) < depth)
      return FailInvalidArgument(ctx, "The size of bad_color (", bad_color_.size(),
                                 ") must be at least the number of channels (", depth, ")");
    const int64_t height = shape.dim(1), width = shape.dim(2), pixels = height * width;
    const int64_t count = std::min(max_images_, shape.dim(0));
    const std::string& base_tag = tag.data<std::string>()[0];
    tensorflow::Summary summary;
    std::vector<uint8_t> bytes(static_cast<size_t>(pixels * depth));
    for (int64_t i = 0; i < count; ++i) {
      const int64_t at = i * pixels * depth;
      switch (images.dtype()) {
        case DT_UINT8: ImageBytes(images.data<uint8_t>() + at, pixels, depth, bad_color_, bytes.data()); break;
        case DT_FLOAT: ImageBytes(images.data<float>() + at, pixels, depth, bad_color_, bytes.data()); break;
        case DT_DOUBLE: ImageBytes(images.data<double>() + at, pixels, depth, bad_color_, bytes.data()); break;
        default: return FailInvalidArgument(ctx, "images of type ", DataTypeName(images.dtype()), " are not supported");
      }
      auto png = png::Encode(bytes.data(), height, width, depth);
      if (!png.ok()) return FailInvalidArgument(ctx, "image ", i, ": ", png.status().message());
      auto* value = summary.add_value();
      // The tag depends on how many images were asked for, not on how many there are.
      value->set_tag(max_images_ > 1 ? clab::StrCat(base_tag, "/image/", i) : clab::StrCat(base_tag, "/image"));
      auto* image = value->mutable_image();
      image->set_height(static_cast<int32_t>(height));
      image->set_width(static_cast<int32_t>(width));
      image->set_colorspace(depth);
      image->set_encoded_image_string(*std::move(png));
    }
    Tensor out(DT_STRING, TensorShape{});
    out.data<std::string>()[0] = summary.SerializeAsString();
    ctx->set_output(0, std::move(out));
  }

 private:
  const int64_t max_images_;
  const std::vector<uint8_t> bad_color_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeImageSummaryKernel(OpKernelConstruction& c) {
  int64_t max_images = 3;
  CLAB_RETURN_IF_ERROR(c.GetAttr("max_images", &max_images));
  Tensor bad_color;
  CLAB_RETURN_IF_ERROR(c.GetAttr("bad_color", &bad_color));
  if (bad_color.dtype() != DT_UINT8 || bad_color.shape().rank() != 1)
    return errors::InvalidArgument("Node '", c.name(), "' (op ImageSummary): bad_color must be a uint8 vector, got ",
                                   DataTypeName(bad_color.dtype()), " ", bad_color.shape().DebugString());
  return std::unique_ptr<OpKernel>(
      new ImageSummaryKernel(max_images, std::vector<uint8_t>(bad_color.data<uint8_t>(),
                                                              bad_color.data<uint8_t>() + bad_color.NumElements())));
}

Status ScalarOutput(ShapeContext& c) {
  c.set_output(0, PartialShape::Scalar());
  return OkStatus();
}

void RegisterSummaryOps(OpRegistry& registry) {
  registry.Register("ScalarSummary")
      .Input("tags: string")
      .Input("values: T")
      .Output("summary: string")
      .Attr("T: {float, double, int32, int64, uint8}")
      .SetShapeFn(ScalarOutput)
      .Kernel("CPU", LambdaKernel(ScalarSummaryCompute, /*expensive=*/false))
      .Summary("A serialised Summary with one simple_value per tag (tf.summary.scalar).")
      .Group("summary");
  registry.Register("HistogramSummary")
      .Input("tag: string")
      .Input("values: T")
      .Output("summary: string")
      .Attr("T: {float, double, int32, int64, uint8} = DT_FLOAT")
      .SetShapeFn(ScalarOutput)
      .Kernel("CPU", LambdaKernel(HistogramSummaryCompute))
      .Summary("A serialised Summary with a histogram of the values (tf.summary.histogram).")
      .Group("summary");
  registry.Register("ImageSummary")
      .Input("tag: string")
      .Input("tensor: T")
      .Output("summary: string")
      .Attr("max_images: int >= 1 = 3")
      .Attr("T: {uint8, float, half, double} = DT_FLOAT")
      .Attr(
          "bad_color: tensor = { dtype: DT_UINT8 tensor_shape { dim { size: 4 } } int_val: 255 int_val: 0 "
          "int_val: 0 int_val: 255 }")
      .SetShapeFn(ScalarOutput)
      .Kernel("CPU", MakeImageSummaryKernel)
      .Summary("A serialised Summary with up to max_images of the batch as PNG images (tf.summary.image).")
      .Group("summary");
  registry.Register("MergeSummary")
      .Input("inputs: N * string")
      .Output("summary: string")
      .Attr("N: int >= 1")
      .SetShapeFn(ScalarOutput)
      .Kernel("CPU", LambdaKernel(MergeSummaryCompute, /*expensive=*/false))
      .Summary("The values of several serialised Summaries in one (tf.summary.merge).")
      .Group("summary");
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kSummaryOpFamily("summary", RegisterSummaryOps);

}  // namespace clab::array_internal
