// C++ wrappers that add one op each to a GraphBuilder, named and defaulted like TensorFlow's
// Python API. `name` empty means the op name.
#pragma once

#include "clab/core/Tensor.h"
#include "clab/graph/GraphBuilder.h"

#include <string>
#include <vector>

namespace clab::ops {

// array
Output Const(GraphBuilder& g, const Tensor& value, std::string_view name = "");
Output Placeholder(GraphBuilder& g, DataType dtype, const PartialShape& shape = PartialShape(),
                   std::string_view name = "");
Output Identity(GraphBuilder& g, const Output& x, std::string_view name = "");
Output NoOp(GraphBuilder& g, const std::vector<Output>& control_inputs = {}, std::string_view name = "");
Output Reshape(GraphBuilder& g, const Output& x, const Output& shape, std::string_view name = "");
Output Transpose(GraphBuilder& g, const Output& x, const Output& perm, std::string_view name = "");
// x's shape when the step runs, as an int32 (or int64) vector.
Output Shape(GraphBuilder& g, const Output& x, DataType out_type = DT_INT32, std::string_view name = "");
Output Cast(GraphBuilder& g, const Output& x, DataType dtype, std::string_view name = "");
Output Fill(GraphBuilder& g, const Output& dims, const Output& value, std::string_view name = "");
Output ZerosLike(GraphBuilder& g, const Output& x, std::string_view name = "");
Output OnesLike(GraphBuilder& g, const Output& x, std::string_view name = "");

// state
Output VariableV2(GraphBuilder& g, const PartialShape& shape, DataType dtype, std::string_view name = "");
Output Assign(GraphBuilder& g, const Output& ref, const Output& value, std::string_view name = "");
Output AssignAdd(GraphBuilder& g, const Output& ref, const Output& value, std::string_view name = "");
Output AssignSub(GraphBuilder& g, const Output& ref, const Output& value, std::string_view name = "");

// math
Output MatMul(GraphBuilder& g, const Output& a, const Output& b, bool transpose_a = false,
              bool transpose_b = false, std::string_view name = "");
Output Add(GraphBuilder& g, const Output& x, const Output& y, std::string_view name = "");  // AddV2
Output Sub(GraphBuilder& g, const Output& x, const Output& y, std::string_view name = "");
Output Mul(GraphBuilder& g, const Output& x, const Output& y, std::string_view name = "");
Output RealDiv(GraphBuilder& g, const Output& x, const Output& y, std::string_view name = "");
Output Neg(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Square(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Sqrt(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Exp(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Log(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Sum(GraphBuilder& g, const Output& x, const Output& axes, bool keep_dims = false, std::string_view name = "");
Output Mean(GraphBuilder& g, const Output& x, const Output& axes, bool keep_dims = false, std::string_view name = "");

// nn
Output Relu(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Sigmoid(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Tanh(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Softmax(GraphBuilder& g, const Output& logits, std::string_view name = "");
Output LogSoftmax(GraphBuilder& g, const Output& logits, std::string_view name = "");
Output BiasAdd(GraphBuilder& g, const Output& value, const Output& bias, std::string_view name = "");
Output L2Loss(GraphBuilder& g, const Output& t, std::string_view name = "");
// The index (int64) of the largest value along `axis`.
Output ArgMax(GraphBuilder& g, const Output& input, int axis, std::string_view name = "");
Output Equal(GraphBuilder& g, const Output& x, const Output& y, std::string_view name = "");
// Each example's cross-entropy loss ([batch]) for int32/int64 labels ([batch]).
Output SparseSoftmaxCrossEntropyWithLogits(GraphBuilder& g, const Output& logits, const Output& labels,
                                           std::string_view name = "");
// Each example's cross-entropy loss ([batch]) for labels given as distributions ([batch, classes]).
Output SoftmaxCrossEntropyWithLogits(GraphBuilder& g, const Output& logits, const Output& labels,
                                     std::string_view name = "");

// convolution and pooling (NHWC images; strides and ksize [1, height, width, 1]; padding
// "SAME" or "VALID")
Output Conv2D(GraphBuilder& g, const Output& input, const Output& filter, const std::vector<int64_t>& strides,
              std::string_view padding, std::string_view name = "");
Output Conv2DBackpropInput(GraphBuilder& g, const Output& input_sizes, const Output& filter,
                           const Output& out_backprop, const std::vector<int64_t>& strides, std::string_view padding,
                           std::string_view name = "");
Output Conv2DBackpropFilter(GraphBuilder& g, const Output& input, const Output& filter_sizes,
                            const Output& out_backprop, const std::vector<int64_t>& strides, std::string_view padding,
                            std::string_view name = "");
Output MaxPool(GraphBuilder& g, const Output& value, const std::vector<int64_t>& ksize,
               const std::vector<int64_t>& strides, std::string_view padding, std::string_view name = "");
Output MaxPoolGrad(GraphBuilder& g, const Output& orig_input, const Output& orig_output, const Output& grad,
                   const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides, std::string_view padding,
                   std::string_view name = "");

// random (seed, seed2 as TensorFlow: both 0 means nondeterministic)
Output RandomUniform(GraphBuilder& g, const Output& shape, DataType dtype, int64_t seed = 0,
                     int64_t seed2 = 0, std::string_view name = "");
Output RandomStandardNormal(GraphBuilder& g, const Output& shape, DataType dtype, int64_t seed = 0,
                            int64_t seed2 = 0, std::string_view name = "");
Output TruncatedNormal(GraphBuilder& g, const Output& shape, DataType dtype, int64_t seed = 0,
                       int64_t seed2 = 0, std::string_view name = "");

// Python-level helpers.
// tf.Variable(initial_value, name=): a VariableV2 "name", its initializer "name/Assign" and
// "name/read" (an Identity colocated with it); registered in the "variables" collection
// (and "trainable_variables" when trainable).
struct Variable {
  Output var;          // the ref output of the VariableV2
  Output initializer;  // the Assign
  Output read;         // the value, for use in computations
};
Variable MakeVariable(GraphBuilder& g, const Output& initial_value, std::string_view name = "",
                      bool trainable = true);
// A NoOp depending on every initializer in the "variables" collection.
Output GlobalVariablesInitializer(GraphBuilder& g, std::string_view name = "init");

}  // namespace clab::ops
