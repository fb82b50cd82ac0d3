#include "ops/SpatialWindow.h"

#include "clab/graph/AttrValues.h"

#include <absl/strings/str_join.h>

#include <algorithm>

namespace clab::spatial {
namespace {

std::string ListText(const std::vector<int64_t>& values) { return StrCat("[", absl::StrJoin(values, ", "), "]"); }

Status CheckFourPositive(const std::vector<int64_t>& values, std::string_view attr) {
  if (values.size() != 4)
    return errors::InvalidArgument(attr, " must specify 4 dimensions (N, H, W, C), got ", ListText(values));
  for (int64_t v : values)
    if (v < 1) return errors::InvalidArgument(attr, " must be positive, got ", ListText(values));
  return OkStatus();
}

Status CheckDataFormat(const tensorflow::NodeDef& node) {
  if (!HasNodeAttr(node, "data_format")) return OkStatus();
  std::string format;
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "data_format", &format));
  if (format != "NHWC")
    return errors::InvalidArgument("data_format '", format,
                                   "' is not supported: the CPU kernels take NHWC images only");
  return OkStatus();
}

Status CheckStrides(const std::vector<int64_t>& strides) {
  CLAB_RETURN_IF_ERROR(CheckFourPositive(strides, "strides"));
  if (strides[0] != 1 || strides[3] != 1)
    return errors::InvalidArgument("strides in the batch and depth dimensions must be 1, got ", ListText(strides));
  return OkStatus();
}

Status ReadPadding(const tensorflow::NodeDef& node, bool pooling, std::string* padding) {
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "padding", padding));
  if (*padding != "SAME" && *padding != "VALID" && !(*padding == "EXPLICIT" && !pooling))
    return errors::InvalidArgument("padding '", *padding, "' is not supported");
  return OkStatus();
}

}  // namespace

StatusOr<WindowAttrs> PoolingWindowAttrs(const tensorflow::NodeDef& node, std::vector<int64_t> ksize,
                                         std::vector<int64_t> strides) {
  WindowAttrs attrs;
  CLAB_RETURN_IF_ERROR(CheckDataFormat(node));
  CLAB_RETURN_IF_ERROR(CheckStrides(strides));
  attrs.strides = std::move(strides);
  CLAB_RETURN_IF_ERROR(ReadPadding(node, /*pooling=*/true, &attrs.padding));
  CLAB_RETURN_IF_ERROR(CheckFourPositive(ksize, "ksize"));
  if (ksize[0] != 1 || ksize[3] != 1)
    return errors::InvalidArgument("pooling over the batch or depth dimension is not supported: ksize ",
                                   ListText(ksize));
  attrs.ksize = std::move(ksize);
  return attrs;
}

StatusOr<WindowAttrs> ReadWindowAttrs(const tensorflow::NodeDef& node, bool pooling) {
  if (pooling) {
    std::vector<int64_t> ksize, strides;
    CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "ksize", &ksize));
    CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "strides", &strides));
    return PoolingWindowAttrs(node, std::move(ksize), std::move(strides));
  }
  WindowAttrs attrs;
  CLAB_RETURN_IF_ERROR(CheckDataFormat(node));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "strides", &attrs.strides));
  CLAB_RETURN_IF_ERROR(CheckStrides(attrs.strides));
  CLAB_RETURN_IF_ERROR(ReadPadding(node, /*pooling=*/false, &attrs.padding));
  if (HasNodeAttr(node, "dilations")) {
    std::vector<int64_t> dilations;
    CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "dilations", &dilations));
    for (int64_t d : dilations)
      if (d != 1) return errors::InvalidArgument("dilations other than 1 are not supported, got ", ListText(dilations));
  }
  if (HasNodeAttr(node, "explicit_paddings"))
    CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "explicit_paddings", &attrs.explicit_paddings));
  if (attrs.padding != "EXPLICIT") {
    if (!attrs.explicit_paddings.empty())
      return errors::InvalidArgument("explicit_paddings must be empty unless padding is EXPLICIT, got ",
                                     ListText(attrs.explicit_paddings));
    return attrs;
  }
  const auto& pads = attrs.explicit_paddings;
  if (pads.size() != 8)
    return errors::InvalidArgument("explicit_paddings must hold 8 values (before and after for N, H, W, C), got ",
                                   ListText(pads));
  for (int64_t p : pads)
    if (p < 0) return errors::InvalidArgument("explicit_paddings must be non-negative, got ", ListText(pads));
  if (pads[0] != 0 || pads[1] != 0 || pads[6] != 0 || pads[7] != 0)
    return errors::InvalidArgument("explicit_paddings in the batch and depth dimensions must be 0, got ",
                                   ListText(pads));
  return attrs;
}

StatusOr<WindowDim> WindowedOutputSize(const WindowAttrs& attrs, int dim, int64_t in, int64_t k) {
  const int64_t stride = attrs.strides[static_cast<size_t>(dim)];
  WindowDim result;
  if (in < 0 || k < 0) return result;
  if (attrs.padding == "VALID") {
    result.out = (in - k + stride) / stride;
  } else if (attrs.padding == "SAME") {
    result.out = (in + stride - 1) / stride;
    const int64_t needed = std::max<int64_t>(0, (result.out - 1) * stride + k - in);
    result.pad_before = needed / 2;
  } else {
    const int64_t before = attrs.explicit_paddings[static_cast<size_t>(2 * dim)];
    const int64_t after = attrs.explicit_paddings[static_cast<size_t>(2 * dim + 1)];
    result.out = (in + before + after - k + stride) / stride;
    result.pad_before = before;
  }
  if (result.out < 0)
    return errors::InvalidArgument("Computed output size would be negative: ", result.out, " [input_size: ", in,
                                   ", effective_filter_size: ", k, ", stride: ", stride, "]");
  return result;
}

StatusOr<Geometry> MakeGeometry(const WindowAttrs& attrs, const TensorShape& input, int64_t k_h, int64_t k_w) {
  if (input.rank() != 4)
    return errors::InvalidArgument("input must be 4-dimensional (NHWC), got shape ", input.DebugString());
  Geometry g;
  g.batch = input.dim(0);
  g.in_h = input.dim(1);
  g.in_w = input.dim(2);
  g.in_c = input.dim(3);
  g.out_c = g.in_c;
  g.k_h = k_h;
  g.k_w = k_w;
  g.stride_h = attrs.strides[1];
  g.stride_w = attrs.strides[2];
  CLAB_ASSIGN_OR_RETURN(const WindowDim rows, WindowedOutputSize(attrs, 1, g.in_h, k_h));
  CLAB_ASSIGN_OR_RETURN(const WindowDim cols, WindowedOutputSize(attrs, 2, g.in_w, k_w));
  g.out_h = rows.out;
  g.out_w = cols.out;
  g.pad_top = rows.pad_before;
  g.pad_left = cols.pad_before;
  return g;
}

StatusOr<WindowAttrs> ShapeFnWindowAttrs(ShapeContext& c, bool pooling) {
  auto attrs = ReadWindowAttrs(c.node(), pooling);
  if (!attrs.ok()) return c.MakeError(std::string(attrs.status().message()));
  return attrs;
}

Status CheckRank4(ShapeContext& c, int input, std::string_view what) {
  const PartialShape& shape = c.input_shape(input);
  if (shape.known_rank() && shape.rank() != 4)
    return c.MakeError(StrCat(what, " must be rank 4 but is rank ", shape.rank()));
  return OkStatus();
}

Status SetWindowedOutputShape(ShapeContext& c, const WindowAttrs& attrs, int64_t k_h, int64_t k_w, int64_t channels) {
  const PartialShape& input = c.input_shape(0);
  auto rows = WindowedOutputSize(attrs, 1, DimOf(input, 1), k_h);
  if (!rows.ok()) return c.MakeError(std::string(rows.status().message()));
  auto cols = WindowedOutputSize(attrs, 2, DimOf(input, 2), k_w);
  if (!cols.ok()) return c.MakeError(std::string(cols.status().message()));
  c.set_output(0, PartialShape({DimOf(input, 0), rows->out, cols->out, channels}));
  return OkStatus();
}

}  // namespace clab::spatial
