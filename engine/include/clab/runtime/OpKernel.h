// Kernels: an OpKernel is built once per node (attrs parsed then) and its Compute runs once
// per step. Inputs that are references (the output of a VariableV2) reach kernels as the
// Variable itself, so Assign can write through them; other kernels see the variable's value,
// and reading one that was never assigned fails with FAILED_PRECONDITION naming it.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/OpRegistry.h"
#include "clab/runtime/Device.h"
#include "clab/runtime/ResourceMgr.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace clab {

class FunctionLibrary;
class Rendezvous;
class ThreadPool;

// A value flowing along an edge: a tensor, or a reference to a variable.
struct EdgeValue {
  Tensor tensor;
  std::shared_ptr<Variable> ref;  // set for ref-typed outputs
};

class OpKernelConstruction {
 public:
  OpKernelConstruction(const tensorflow::NodeDef& node, const OpDef& op, Device* device,
                       std::vector<DataType> input_types, std::vector<DataType> output_types)
      : node_(node), op_(op), device_(device), input_types_(std::move(input_types)),
        output_types_(std::move(output_types)) {}

  const tensorflow::NodeDef& node() const { return node_; }
  const std::string& name() const { return node_.name(); }
  const OpDef& op() const { return op_; }
  Device* device() const { return device_; }
  DataType input_type(int i) const { return input_types_[static_cast<size_t>(i)]; }
  DataType output_type(int i) const { return output_types_[static_cast<size_t>(i)]; }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  template <typename T>
  Status GetAttr(std::string_view attr_name, T* value) const {
    return GetNodeAttr(node_, attr_name, value);
  }
  // The functions of the graph the node belongs to (never null while an executor builds
  // kernels; null for a kernel built outside one).
  const FunctionLibrary* function_library() const { return functions_; }
  void set_function_library(const FunctionLibrary* functions) { functions_ = functions; }

 private:
  const tensorflow::NodeDef& node_;
  const OpDef& op_;
  Device* device_;
  const FunctionLibrary* functions_ = nullptr;
  std::vector<DataType> input_types_;
  std::vector<DataType> output_types_;
};

// Per-step facts a kernel may need beyond its inputs.
struct StepInfo {
  int64_t step_id = 0;
  Rendezvous* rendezvous = nullptr;  // for _Send/_Recv
  ThreadPool* thread_pool = nullptr;
};

class OpKernelContext {
 public:
  OpKernelContext(const tensorflow::NodeDef& node, Device* device, const StepInfo& step, std::vector<EdgeValue> inputs,
                  int num_outputs)
      : node_(node), device_(device), step_(step), inputs_(std::move(inputs)),
        outputs_(static_cast<size_t>(num_outputs)) {}

  const tensorflow::NodeDef& node() const { return node_; }
  const std::string& name() const { return node_.name(); }
  Device* device() const { return device_; }
  const StepInfo& step() const { return step_; }
  ResourceMgr* resource_mgr() const { return device_->resource_mgr(); }

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  // The value of input i (for a ref input: the variable's current value, shared).
  const Tensor& input(int i) const { return inputs_[static_cast<size_t>(i)].tensor; }
  // The variable behind a ref input, or nullptr when input i is not a ref.
  const std::shared_ptr<Variable>& input_ref(int i) const { return inputs_[static_cast<size_t>(i)].ref; }

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  void set_output(int i, Tensor value) { outputs_[static_cast<size_t>(i)].tensor = std::move(value); }
  void set_output_ref(int i, std::shared_ptr<Variable> var) { outputs_[static_cast<size_t>(i)].ref = std::move(var); }
  // Allocates output i with the device's allocator.
  Tensor* allocate_output(int i, DataType dtype, const TensorShape& shape);
  std::vector<EdgeValue>& outputs() { return outputs_; }

  void SetStatus(Status status) {
    if (status_.ok()) status_ = std::move(status);
  }
  const Status& status() const { return status_; }

 private:
  const tensorflow::NodeDef& node_;
  Device* device_;
  const StepInfo& step_;
  std::vector<EdgeValue> inputs_;
  std::vector<EdgeValue> outputs_;
  Status status_;
};

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  // Report failures with ctx->SetStatus(...); the executor adds the node name to messages
  // that do not already carry it.
  virtual void Compute(OpKernelContext* ctx) = 0;
  // False for cheap kernels (Const, Identity, NoOp) that the executor runs inline.
  virtual bool IsExpensive() const { return true; }
  // True for kernels that complete later (e.g. _Recv); they override ComputeAsync.
  virtual bool IsAsync() const { return false; }
  virtual void ComputeAsync(OpKernelContext* ctx, std::function<void()> done) {
    Compute(ctx);
    done();
  }
};

// A kernel from a lambda: Kernel("CPU", LambdaKernel([](OpKernelContext* c) {...})).
KernelFactory LambdaKernel(std::function<void(OpKernelContext*)> compute, bool expensive = true);

}  // namespace clab
