// The geometry Conv2D, MaxPool and their gradients share: the attrs that place a window on
// an NHWC image (strides, padding, data_format, and ksize for pooling), checked as
// TensorFlow checks them, and the output size and leading padding in each spatial
// dimension (TensorFlow's GetWindowedOutputSize):
//   VALID:    out = ceil((in - k + 1) / stride), no padding
//   SAME:     out = ceil(in / stride), padding max(0, (out - 1) * stride + k - in) split
//             with the smaller half before
//   EXPLICIT: out = (in + before + after - k) / stride + 1 (Conv2D only)
#pragma once

#include "clab/core/Status.h"
#include "clab/core/TensorShape.h"
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "tensorflow/graph.pb.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace clab::spatial {

struct WindowAttrs {
  std::vector<int64_t> ksize = {1, 1, 1, 1};  // pooling: [1, kh, kw, 1]; conv: from the filter
  std::vector<int64_t> strides;               // [1, sh, sw, 1]
  std::string padding;                        // "SAME", "VALID" or "EXPLICIT"
  std::vector<int64_t> explicit_paddings;     // with EXPLICIT: (before, after) for N, H, W, C
};

// Reads and checks a node's window attrs: `pooling` reads ksize, otherwise the convolution's
// dilations and explicit_paddings (when the node has them). The message says what is wrong
// without naming the node; callers add it (shape functions through MakeError, kernels with
// the node suffix).
StatusOr<WindowAttrs> ReadWindowAttrs(const tensorflow::NodeDef& node, bool pooling);
// The pooling attrs with ksize and strides given as values (MaxPoolV2 takes them as inputs);
// padding and data_format come from the node. Checked as ReadWindowAttrs checks them.
StatusOr<WindowAttrs> PoolingWindowAttrs(const tensorflow::NodeDef& node, std::vector<int64_t> ksize,
                                         std::vector<int64_t> strides);

// One spatial dimension (1 for height, 2 for width): the output size and the padding
// before the first input element; -1 for an output size when `in` or `k` is -1 (unknown).
struct WindowDim {
  int64_t out = -1;
  int64_t pad_before = 0;
};
StatusOr<WindowDim> WindowedOutputSize(const WindowAttrs& attrs, int dim, int64_t in, int64_t k);

// Dimension i of a shape for a shape function: -1 when unknown (or the rank is).
inline int64_t DimOf(const PartialShape& shape, int i) { return shape.known_rank() ? shape.dim(i) : -1; }

// Everything a kernel needs to walk windows over a batch of NHWC images.
struct Geometry {
  int64_t batch = 0, in_h = 0, in_w = 0, in_c = 0;
  int64_t k_h = 0, k_w = 0, stride_h = 1, stride_w = 1;
  int64_t out_h = 0, out_w = 0, pad_top = 0, pad_left = 0;
  int64_t out_c = 0;  // Conv2D: the filter's out_channels; pooling: in_c

  TensorShape InputShape() const { return TensorShape({batch, in_h, in_w, in_c}); }
  TensorShape OutputShape() const { return TensorShape({batch, out_h, out_w, out_c}); }
};

// input: [batch, in_h, in_w, in_c]; window k_h x k_w.
StatusOr<Geometry> MakeGeometry(const WindowAttrs& attrs, const TensorShape& input, int64_t k_h, int64_t k_w);

// ---- For shape functions: errors through MakeError, which names the node and the shapes.

StatusOr<WindowAttrs> ShapeFnWindowAttrs(ShapeContext& c, bool pooling);
// Input `input` must be rank 4 when its rank is known; `what` names it in the message.
Status CheckRank4(ShapeContext& c, int input, std::string_view what);
// Output 0 is [batch, out_h, out_w, channels] for k_h x k_w windows over input 0 (any of
// them -1 when unknown).
Status SetWindowedOutputShape(ShapeContext& c, const WindowAttrs& attrs, int64_t k_h, int64_t k_w, int64_t channels);

// ---- For kernels.

// The factory of a window op's kernel: reads the node's attrs (an error names the node) and
// makes Kernel<float> or Kernel<double>(mode, attrs) for the type of output 0.
template <template <typename> class Kernel, typename Mode>
KernelFactory WindowKernelFactory(Mode mode, bool pooling) {
  return [mode, pooling](OpKernelConstruction& construction) -> StatusOr<std::unique_ptr<OpKernel>> {
    auto attrs = ReadWindowAttrs(construction.node(), pooling);
    if (!attrs.ok())
      return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                     "): ", attrs.status().message());
    switch (construction.output_type(0)) {
      case DT_FLOAT: return std::unique_ptr<OpKernel>(new Kernel<float>(mode, *std::move(attrs)));
      case DT_DOUBLE: return std::unique_ptr<OpKernel>(new Kernel<double>(mode, *std::move(attrs)));
      default:
        return errors::InvalidArgument("Node '", construction.name(), "' (op ", construction.op().name,
                                       ") has no CPU kernel for type ", DataTypeName(construction.output_type(0)));
    }
  };
}

}  // namespace clab::spatial
