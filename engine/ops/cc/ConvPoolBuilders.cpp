// clab::ops wrappers for the convolution and pooling ops (ops/ConvOps.cpp, ops/PoolOps.cpp). The
// data_format, dilations and explicit_paddings attrs keep their defaults (NHWC, 1, none).
#include "clab/graph/AttrValues.h"
#include "clab/ops/Ops.h"

#include <map>
#include <string>

namespace clab::ops {
namespace {

using AttrMap = std::map<std::string, tensorflow::AttrValue>;

AttrMap WindowAttrs(const std::vector<int64_t>* ksize, const std::vector<int64_t>& strides, std::string_view padding) {
  AttrMap attrs;
  if (ksize != nullptr) attrs["ksize"] = AttrOf(*ksize);
  attrs["strides"] = AttrOf(strides);
  attrs["padding"] = AttrOf(padding);
  return attrs;
}

}  // namespace

Output Conv2D(GraphBuilder& g, const Output& input, const Output& filter, const std::vector<int64_t>& strides,
              std::string_view padding, std::string_view name) {
  return g.AddNode("Conv2D", {input, filter}, WindowAttrs(nullptr, strides, padding), name);
}

Output Conv2DBackpropInput(GraphBuilder& g, const Output& input_sizes, const Output& filter, const Output& out_backprop,
                           const std::vector<int64_t>& strides, std::string_view padding, std::string_view name) {
  return g.AddNode("Conv2DBackpropInput", {input_sizes, filter, out_backprop}, WindowAttrs(nullptr, strides, padding),
                   name);
}

Output Conv2DBackpropFilter(GraphBuilder& g, const Output& input, const Output& filter_sizes,
                            const Output& out_backprop, const std::vector<int64_t>& strides, std::string_view padding,
                            std::string_view name) {
  return g.AddNode("Conv2DBackpropFilter", {input, filter_sizes, out_backprop}, WindowAttrs(nullptr, strides, padding),
                   name);
}

Output MaxPool(GraphBuilder& g, const Output& value, const std::vector<int64_t>& ksize,
               const std::vector<int64_t>& strides, std::string_view padding, std::string_view name) {
  return g.AddNode("MaxPool", {value}, WindowAttrs(&ksize, strides, padding), name);
}

Output MaxPoolGrad(GraphBuilder& g, const Output& orig_input, const Output& orig_output, const Output& grad,
                   const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides, std::string_view padding,
                   std::string_view name) {
  return g.AddNode("MaxPoolGrad", {orig_input, orig_output, grad}, WindowAttrs(&ksize, strides, padding), name);
}

}  // namespace clab::ops
