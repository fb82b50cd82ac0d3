// Handles of shared state other than variables (queues, accumulators), as TensorFlow 1.x
// passes them: a string vector [container, shared_name] naming the resource in the
// ResourceMgr of the device the ops run on. Ops that take a handle are colocated with the
// op that made it; one that runs elsewhere finds nothing and says so.
#pragma once

#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"

#include <memory>
#include <string>

namespace clab::resource_handles {

inline Tensor MakeHandle(const std::string& container, const std::string& name) {
  return Tensor::Vector<std::string>({container, name});
}

// The same two strings in a tensor of TensorFlow's resource dtype, for the ops TensorFlow
// declares with resource inputs and outputs (VarHandleOp and the ops reading its handle).
inline Tensor MakeResourceHandle(const std::string& container, const std::string& name) {
  Tensor handle(tensorflow::DT_RESOURCE, TensorShape({2}));
  handle.data<std::string>()[0] = container;
  handle.data<std::string>()[1] = name;
  return handle;
}

// The resource named by handle input `i`, or nullptr with the context's status set.
template <typename T>
std::shared_ptr<T> Lookup(OpKernelContext* ctx, int i, std::string_view kind) {
  const Tensor& handle = ctx->input(i);
  if ((handle.dtype() != DT_STRING && handle.dtype() != tensorflow::DT_RESOURCE) || handle.NumElements() != 2) {
    array_internal::FailInvalidArgument(ctx, "input ", i, " must be a ", kind,
                                        " handle (a string vector of 2: ", "container and name), got ",
                                        DataTypeName(handle.dtype()), " ", handle.shape().DebugString());
    return nullptr;
  }
  const std::string& container = handle.data<std::string>()[0];
  const std::string& name = handle.data<std::string>()[1];
  auto found = ctx->resource_mgr()->Lookup<T>(container, name);
  if (!found)
    ctx->SetStatus(errors::NotFound(kind, " '", name, "' does not exist on ", ctx->device()->name(),
                                    "; ops that use it must run on the device of the op that made it",
                                    array_internal::NodeSuffix(ctx->name())));
  return found;
}

// Reads the container and shared_name attrs of a resource-making node; shared_name empty
// means the node's own name.
inline Status ResourceName(OpKernelConstruction& c, std::string* container, std::string* name) {
  CLAB_RETURN_IF_ERROR(c.GetAttr("container", container));
  CLAB_RETURN_IF_ERROR(c.GetAttr("shared_name", name));
  if (name->empty()) *name = c.name();
  return OkStatus();
}

}  // namespace clab::resource_handles
