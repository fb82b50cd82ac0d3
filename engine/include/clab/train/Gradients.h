// Reverse-mode automatic differentiation over a graph being built: tf.gradients(y, xs).
//
//   Output loss = ...;
//   auto grads = clab::Gradients(g, loss, {w.var, b.var});   // d loss / d w, d loss / d b
//
// Each op type has a gradient function (train/GradientFunctions.cpp) that adds the backward
// ops; they are built colocated with their forward op, so a model's backward pass runs where
// its forward pass runs (on the worker) and only the gradients of variables travel to the
// ps. Contributions of several consumers are summed. An x that y does not depend on gets an
// invalid Output (TensorFlow's None).
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"

#include <vector>

namespace clab {

// UNIMPLEMENTED naming the op when an op on the path from xs to y has no gradient function;
// INVALID_ARGUMENT when y is not a scalar-like float tensor the gradient starts from.
StatusOr<std::vector<Output>> Gradients(GraphBuilder& graph, const Output& y, const std::vector<Output>& xs);

// Whether the op type has a gradient function.
bool HasGradient(const std::string& op);

}  // namespace clab
