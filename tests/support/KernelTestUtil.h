// Running one op's kernel or shape function without a graph, an executor or a session:
//
//   auto node = MakeNode("m", "MatMul", {"a", "b"}, {{"T", AttrOf(DT_FLOAT)}});
//   auto out = RunKernel(node, {Tensor::Matrix<float>({{1, 2}}), Tensor::Matrix<float>({{3}, {4}})});
//   QVERIFY(out.ok());  // (*out)[0] is [[11]]
//
// The node gets its default attrs and is validated first, as a graph would do, so a test
// sees the same errors a user would. Header-only; Qt-free.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/Device.h"
#include "clab/runtime/OpKernel.h"
#include "clab/runtime/ResourceMgr.h"
#include "tensorflow/config.pb.h"
#include "tensorflow/graph.pb.h"

#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clab::testing {

// The host CPU of a local task ("/job:localhost/replica:0/task:0/device:CPU:0"), made once
// per test program. Its ResourceMgr keeps variables between calls: tests that need a clean
// one call TestCpuDevice()->resource_mgr()->Clear().
inline Device* TestCpuDevice() {
  static const std::unique_ptr<DeviceMgr> devices = [] {
    auto made = DeviceMgr::CreateLocal("/job:localhost/replica:0/task:0", tensorflow::ConfigProto());
    if (!made.ok()) {
      std::fprintf(stderr, "Cannot create the test CPU device: %s\n", FormatStatus(made.status()).c_str());
      std::abort();
    }
    return std::move(made).value();
  }();
  return devices->host_cpu();
}

// MakeNode("x", "Placeholder", {}, {{"dtype", AttrOf(DT_FLOAT)}}). Inputs are NodeDef
// input strings: "a", "a:1", "^ctrl".
inline tensorflow::NodeDef MakeNode(const std::string& name, const std::string& op,
                                    const std::vector<std::string>& inputs = {},
                                    const std::map<std::string, tensorflow::AttrValue>& attrs = {}) {
  tensorflow::NodeDef node;
  node.set_name(name);
  node.set_op(op);
  for (const auto& input : inputs) node.add_input(input);
  for (const auto& [key, value] : attrs) (*node.mutable_attr())[key] = value;
  return node;
}

// An input that refers to a variable, as the executor passes one: the reference, plus the
// variable's current value when it has one.
inline EdgeValue RefInput(const std::shared_ptr<Variable>& var) {
  EdgeValue edge;
  edge.ref = var;
  std::lock_guard<std::mutex> lock(var->mu());
  if (var->initialized()) edge.tensor = var->value();
  return edge;
}

inline std::vector<EdgeValue> ValueInputs(const std::vector<Tensor>& tensors) {
  std::vector<EdgeValue> edges(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) edges[i].tensor = tensors[i];
  return edges;
}

// Validates `node` (filling defaults), builds its kernel for `device` and runs it once.
// Returns the raw outputs, references included. Errors from any stage are returned as is.
inline StatusOr<std::vector<EdgeValue>> RunKernelOnEdges(tensorflow::NodeDef node, std::vector<EdgeValue> inputs,
                                                         Device* device = nullptr,
                                                         const OpRegistry& registry = OpRegistry::Global()) {
  if (device == nullptr) device = TestCpuDevice();
  CLAB_ASSIGN_OR_RETURN(const OpDef* op, registry.LookUp(node.op()));
  CLAB_RETURN_IF_ERROR(AddDefaultsAndValidate(*op, &node));
  std::vector<DataType> input_types, output_types;
  CLAB_RETURN_IF_ERROR(InOutTypesForNode(node, *op, &input_types, &output_types));
  if (inputs.size() != input_types.size())
    return errors::InvalidArgument("Test gives ", inputs.size(), " inputs to node '", node.name(), "', which takes ",
                                   input_types.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool needs_ref = IsRefType(input_types[i]);
    if (needs_ref && !inputs[i].ref)
      return errors::InvalidArgument("Test input ", i, " of node '", node.name(), "' must be a RefInput");
    if (!needs_ref && inputs[i].tensor.IsInitialized() && inputs[i].tensor.dtype() != input_types[i])
      return errors::InvalidArgument("Test input ", i, " of node '", node.name(), "' is ",
                                     DataTypeName(inputs[i].tensor.dtype()), ", the node expects ",
                                     DataTypeName(input_types[i]));
  }

  auto factory = op->kernels.find(device->type());
  if (factory == op->kernels.end()) return errors::NotFound("Op '", op->name, "' has no ", device->type(), " kernel");
  OpKernelConstruction construction(node, *op, device, input_types, output_types);
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel, factory->second(construction));

  StepInfo step;
  OpKernelContext ctx(node, device, step, std::move(inputs), static_cast<int>(output_types.size()));
  if (kernel->IsAsync()) {
    std::promise<void> finished;
    kernel->ComputeAsync(&ctx, [&finished] { finished.set_value(); });
    finished.get_future().wait();
  } else {
    kernel->Compute(&ctx);
  }
  CLAB_RETURN_IF_ERROR(ctx.status());
  return ctx.outputs();
}

// The outputs as values; a reference output reads as its variable's current value (an
// uninitialised one as an empty Tensor).
inline StatusOr<std::vector<Tensor>> RunKernel(const tensorflow::NodeDef& node, const std::vector<Tensor>& inputs,
                                               Device* device = nullptr) {
  CLAB_ASSIGN_OR_RETURN(std::vector<EdgeValue> outputs, RunKernelOnEdges(node, ValueInputs(inputs), device));
  std::vector<Tensor> values;
  for (auto& out : outputs) {
    if (out.ref) {
      std::lock_guard<std::mutex> lock(out.ref->mu());
      values.push_back(out.ref->value());
    } else {
      values.push_back(std::move(out.tensor));
    }
  }
  return values;
}

// Runs the op's shape function. `input_constants` may be shorter than the inputs (missing
// ones are unknown); input types come from the validated node.
inline StatusOr<std::vector<PartialShape>> InferShapes(tensorflow::NodeDef node, std::vector<PartialShape> input_shapes,
                                                       std::vector<const Tensor*> input_constants = {},
                                                       const OpRegistry& registry = OpRegistry::Global()) {
  CLAB_ASSIGN_OR_RETURN(const OpDef* op, registry.LookUp(node.op()));
  CLAB_RETURN_IF_ERROR(AddDefaultsAndValidate(*op, &node));
  std::vector<DataType> input_types, output_types;
  CLAB_RETURN_IF_ERROR(InOutTypesForNode(node, *op, &input_types, &output_types));
  if (input_shapes.size() != input_types.size())
    return errors::InvalidArgument("Test gives ", input_shapes.size(), " input shapes to node '", node.name(),
                                   "', which takes ", input_types.size());
  input_constants.resize(input_shapes.size(), nullptr);
  ShapeContext ctx(node, input_types, std::move(input_shapes), std::move(input_constants),
                   static_cast<int>(output_types.size()));
  if (op->shape_fn) CLAB_RETURN_IF_ERROR(op->shape_fn(ctx));
  return ctx.outputs();
}

}  // namespace clab::testing
