// Helpers shared by the array and state kernels: error messages that name their node, and
// reading an input that may arrive as a variable reference.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/graph/OpRegistry.h"
#include "clab/runtime/OpKernel.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace clab::array_internal {

// TensorFlow's tail for kernel errors, "\n\t [[{{node NAME}}]]": a message names its node
// whether the kernel runs in an executor or alone in a test.
inline std::string NodeSuffix(const std::string& node_name) {
  return clab::StrCat("\n\t [[{{node ", node_name, "}}]]");
}

template <typename... Args>
void FailInvalidArgument(OpKernelContext* ctx, const Args&... args) {
  ctx->SetStatus(errors::InvalidArgument(args..., NodeSuffix(ctx->name())));
}

// The name of the node feeding data input `i` ("w" for "w:0"), used to name variables.
inline std::string InputNodeName(const tensorflow::NodeDef& node, int i) {
  int data_index = 0;
  for (const auto& input : node.input()) {
    if (!input.empty() && input[0] == '^') continue;
    if (data_index++ != i) continue;
    const size_t colon = input.find(':');
    return colon == std::string::npos ? input : input.substr(0, colon);
  }
  return node.name();
}

inline Status UninitializedError(const std::string& variable, const std::string& node_name) {
  return errors::FailedPrecondition("Attempting to use uninitialized value ", variable, NodeSuffix(node_name));
}

// The value of input `i`. A variable reference that reaches a value input (VariableV2 into
// Identity) is read here when the executor did not already read it.
inline bool ReadInput(OpKernelContext* ctx, int i, Tensor* value) {
  const Tensor& given = ctx->input(i);
  if (given.IsInitialized()) {
    *value = given;
    return true;
  }
  if (const auto& var = ctx->input_ref(i)) {
    std::lock_guard<std::mutex> lock(var->mu());
    if (var->initialized()) {
      *value = var->value();
      return true;
    }
    ctx->SetStatus(UninitializedError(InputNodeName(ctx->node(), i), ctx->name()));
    return false;
  }
  FailInvalidArgument(ctx, "Input ", i, " of node '", ctx->name(), "' has no value");
  return false;
}

// True when only the variable and this kernel call hold `current`'s buffer: then nobody can
// observe an in-place write.
inline bool OnlyVariableHolds(const OpKernelContext* ctx, const Tensor& current, const Tensor& value) {
  long holders = current.BufferUseCount() - 1;  // the variable's own
  for (int i = 0; i < ctx->num_inputs(); ++i)
    if (ctx->input(i).SharesBufferWith(current)) --holders;
  if (value.SharesBufferWith(current)) --holders;  // our local copy of input 1
  return holders <= 0 && current.OnHost();
}

// A 1-D int32 or int64 tensor (shapes, permutations, dims) as int64 values.
inline StatusOr<std::vector<int64_t>> ReadIndexVector(const Tensor& t) {
  std::vector<int64_t> values(static_cast<size_t>(t.NumElements()));
  if (t.dtype() == DT_INT32) {
    for (size_t k = 0; k < values.size(); ++k) values[k] = t.data<int32_t>()[k];
  } else if (t.dtype() == DT_INT64) {
    for (size_t k = 0; k < values.size(); ++k) values[k] = t.data<int64_t>()[k];
  } else {
    return errors::InvalidArgument("expected an int32 or int64 tensor, got ", DataTypeName(t.dtype()));
  }
  return values;
}

// The value of a one-element int32 or int64 tensor (an axis, a depth) named `what`.
inline StatusOr<int64_t> ReadIndexScalar(const Tensor& t, std::string_view what) {
  if (t.NumElements() != 1)
    return errors::InvalidArgument(what, " must hold a single value, got shape ", t.shape().DebugString());
  CLAB_ASSIGN_OR_RETURN(const std::vector<int64_t> values, ReadIndexVector(t));
  return values[0];
}

// Reshape and Transpose live in ArrayShapeOps.cpp; RegisterArrayOps calls this.
void RegisterArrayShapeOps(OpRegistry& registry);

}  // namespace clab::array_internal
