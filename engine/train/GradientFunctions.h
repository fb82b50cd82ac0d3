// The gradient function of each differentiable op: given the forward node, its inputs and
// outputs and the gradient arriving at its output 0, build the gradients of its inputs
// (an invalid Output for an input that gets none).
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace clab::gradients_internal {

struct GradContext {
  GraphBuilder* graph = nullptr;
  const tensorflow::NodeDef* node = nullptr;
  std::vector<Output> inputs;  // the forward node's data inputs
  Output output;               // its output 0
  Output grad;                 // d y / d output
};

using GradFn = std::function<StatusOr<std::vector<Output>>(const GradContext&)>;

// Gather's: a sparse gradient in dense clothing, UnsortedSegmentSum(values, indices,
// rows). Optimizers recognise that op and send only values and indices to the ps
// (Optimizer::ApplyGradients); anything else may use it as the dense tensor it is.
StatusOr<std::vector<Output>> GatherGrad(const GradContext& c);

// A scalar constant of a float type.
Output Scalar(GraphBuilder& g, DataType dtype, double value);

// Sums `grad` (shaped like the broadcast result) down to the shape of `x`: numpy
// broadcasting's gradient. The leading axes x lacks are summed away, then the axes where x
// has size 1 are summed keeping them; which axes those are is decided from the ranks and
// sizes known when the graph is built (a dimension unknown on both sides counts as equal).
StatusOr<Output> SumToShapeOf(GraphBuilder& g, const Output& grad, const Output& x);

// nullptr when the op has none.
const GradFn* FindGradFn(const std::string& op);

// The gradients of the nn ops built from several ops or ops of their own (softmax,
// cross-entropy, convolution, pooling), added to the registry (GradientFunctionsNn.cpp).
void AddNnGradFns(std::map<std::string, GradFn>& registry);

// The gradients of the element-wise math and array ops TensorFlow-written graphs use
// (Maximum, Minimum, Abs, Reciprocal, Sqrt, Rsqrt, Log1p, SquaredDifference, ExpandDims,
// Squeeze, Pack), added to the registry (GradientFunctionsMath.cpp).
void AddMathGradFns(std::map<std::string, GradFn>& registry);

// The gradients of the sparse lookups of embedding columns (SparseSegmentSum, Mean and
// SqrtN; GatherNd), added to the registry (GradientFunctionsSparse.cpp).
void AddSparseGradFns(std::map<std::string, GradFn>& registry);

}  // namespace clab::gradients_internal
