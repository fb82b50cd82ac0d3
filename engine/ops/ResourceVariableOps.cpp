// Resource variables (tf.get_variable(..., use_resource=True), Keras layers, TF 1.12+
// SavedModels): VarHandleOp names a variable in its device's ResourceMgr and outputs a
// handle; ReadVariableOp, AssignVariableOp, AssignAddVariableOp, AssignSubVariableOp,
// VarIsInitializedOp and ResourceGather work on the variable the handle names.
//
// A handle is a tensor of the resource dtype holding [container, name] (TensorFlow's is a
// scalar of that dtype); the variable is the same Variable a VariableV2 holds. Writes install a new buffer rather than
// changing the old one, so a value read earlier in the step never changes under its reader.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "clab/runtime/ResourceMgr.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/ElementCopy.h"
#include "ops/ResourceHandles.h"

namespace clab {
namespace {

using array_internal::CopyElements;
using array_internal::FailInvalidArgument;
using array_internal::NodeSuffix;

constexpr const char* kKind = "resource variable";

class VarHandleKernel : public OpKernel {
 public:
  VarHandleKernel(DataType dtype, PartialShape shape, std::string container, std::string name)
      : dtype_(dtype), shape_(std::move(shape)), container_(std::move(container)), name_(std::move(name)) {}

  void Compute(OpKernelContext* ctx) override {
    auto var = ctx->resource_mgr()->LookupOrCreate<Variable>(
        container_, name_, [&] { return std::make_shared<Variable>(dtype_, shape_); });
    if (!var.ok()) return ctx->SetStatus(errors::Annotate(var.status(), StrCat("Variable '", name_, "': ")));
    if ((*var)->dtype() != dtype_)
      return FailInvalidArgument(ctx, "Variable '", name_, "' in container '", container_,
                                 "' already exists with dtype ", DataTypeName((*var)->dtype()), ", but node '",
                                 ctx->name(), "' declares ", DataTypeName(dtype_));
    ctx->set_output(0, resource_handles::MakeResourceHandle(container_, name_));
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_;
  PartialShape shape_;
  std::string container_, name_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeVarHandleKernel(OpKernelConstruction& c) {
  DataType dtype = DT_INVALID;
  PartialShape shape;
  std::string container, name;
  CLAB_RETURN_IF_ERROR(c.GetAttr("dtype", &dtype));
  CLAB_RETURN_IF_ERROR(c.GetAttr("shape", &shape));
  CLAB_RETURN_IF_ERROR(resource_handles::ResourceName(c, &container, &name));
  return std::unique_ptr<OpKernel>(new VarHandleKernel(dtype, std::move(shape), std::move(container), std::move(name)));
}

std::string VariableName(const OpKernelContext* ctx) {
  const Tensor& handle = ctx->input(0);
  return handle.dtype() == tensorflow::DT_RESOURCE && handle.NumElements() == 2 ? handle.data<std::string>()[1] : "?";
}

// The variable's value, or false with the status set (a missing or uninitialised variable,
// a dtype other than the node's).
bool ReadValue(OpKernelContext* ctx, DataType dtype, Tensor* value) {
  auto var = resource_handles::Lookup<Variable>(ctx, 0, kKind);
  if (!var) return false;
  std::lock_guard<std::mutex> lock(var->mu());
  if (!var->initialized()) {
    ctx->SetStatus(errors::FailedPrecondition("Error while reading resource variable ", VariableName(ctx),
                                              ": it is uninitialized (run its initializer first)",
                                              NodeSuffix(ctx->name())));
    return false;
  }
  if (var->dtype() != dtype) {
    FailInvalidArgument(ctx, "resource variable ", VariableName(ctx), " holds ", DataTypeName(var->dtype()),
                        ", the node reads ", DataTypeName(dtype));
    return false;
  }
  *value = var->value();
  return true;
}

void ReadVariableCompute(OpKernelContext* ctx, DataType dtype) {
  Tensor value;
  if (ReadValue(ctx, dtype, &value)) ctx->set_output(0, value);
}

// mode 0: assign, +1: add, -1: subtract.
void AssignVariableCompute(OpKernelContext* ctx, DataType dtype, int mode) {
  auto var = resource_handles::Lookup<Variable>(ctx, 0, kKind);
  if (!var) return;
  const Tensor& value = ctx->input(1);
  if (var->dtype() != dtype || value.dtype() != dtype)
    return FailInvalidArgument(ctx, "resource variable ", VariableName(ctx), " holds ", DataTypeName(var->dtype()),
                               ", the node writes ", DataTypeName(value.dtype()));
  std::lock_guard<std::mutex> lock(var->mu());
  if (mode == 0) {
    if (var->declared_shape().known_rank() && !var->declared_shape().IsCompatibleWith(PartialShape(value.shape())))
      return FailInvalidArgument(ctx, "resource variable ", VariableName(ctx), " is declared ",
                                 var->declared_shape().DebugString(), "; cannot assign a value of shape ",
                                 value.shape().DebugString());
    var->value() = value.DeepCopy();
    return;
  }
  if (!var->initialized())
    return ctx->SetStatus(errors::FailedPrecondition("Error while reading resource variable ", VariableName(ctx),
                                                     ": it is uninitialized (run its initializer first)",
                                                     NodeSuffix(ctx->name())));
  const Tensor& old = var->value();
  if (!(old.shape() == value.shape()))
    return FailInvalidArgument(ctx, "resource variable ", VariableName(ctx), " has shape ", old.shape().DebugString(),
                               "; cannot add a value of shape ", value.shape().DebugString());
  Tensor updated(dtype, old.shape());
  CLAB_SWITCH_REAL_TYPES(
      dtype, T,
      {
        for (int64_t i = 0; i < old.NumElements(); ++i)
          updated.data<T>()[i] =
              mode > 0 ? old.data<T>()[i] + value.data<T>()[i] : old.data<T>()[i] - value.data<T>()[i];
      },
      return FailInvalidArgument(ctx, "cannot add to a resource variable of ", DataTypeName(dtype)));
  var->value() = std::move(updated);
}

void VarIsInitializedCompute(OpKernelContext* ctx) {
  const Tensor& handle = ctx->input(0);
  bool initialized = false;
  if (handle.dtype() == tensorflow::DT_RESOURCE && handle.NumElements() == 2) {
    auto var = ctx->resource_mgr()->Lookup<Variable>(handle.data<std::string>()[0], handle.data<std::string>()[1]);
    if (var) {
      std::lock_guard<std::mutex> lock(var->mu());
      initialized = var->initialized();
    }
  }
  ctx->set_output(0, Tensor::Scalar<bool>(initialized));
}

// Rows of the variable (axis 0) at the indices: output shape indices.shape + params.shape[1:].
void ResourceGatherCompute(OpKernelContext* ctx, DataType dtype) {
  Tensor params;
  if (!ReadValue(ctx, dtype, &params)) return;
  const Tensor& indices = ctx->input(1);
  if (params.shape().rank() < 1)
    return FailInvalidArgument(ctx, "resource variable ", VariableName(ctx), " must be at least a vector to gather, ",
                               "got ", params.shape().DebugString());
  const int64_t rows = params.shape().dim(0);
  const int64_t row = rows == 0 ? 0 : params.NumElements() / rows;
  std::vector<int64_t> dims = indices.shape().dims();
  dims.insert(dims.end(), params.shape().dims().begin() + 1, params.shape().dims().end());
  Tensor* out = ctx->allocate_output(0, dtype, TensorShape(dims));
  if (out == nullptr) return;
  for (int64_t i = 0; i < indices.NumElements(); ++i) {
    const int64_t index = indices.dtype() == DT_INT64 ? indices.data<int64_t>()[i] : indices.data<int32_t>()[i];
    if (index < 0 || index >= rows)
      return FailInvalidArgument(ctx, "indices[", i, "] = ", index, " is not in [0, ", rows, ")");
    CopyElements(params, index * row, out, i * row, row);
  }
}

template <typename Fn>
KernelFactory WithDtype(Fn compute, bool expensive = false) {
  return [compute, expensive](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
    DataType dtype = DT_INVALID;
    CLAB_RETURN_IF_ERROR(c.GetAttr("dtype", &dtype));
    return LambdaKernel([compute, dtype](OpKernelContext* ctx) { compute(ctx, dtype); }, expensive)(c);
  };
}

Status HandleShape(ShapeContext& c) {
  c.set_output(0, PartialShape({2}));
  return OkStatus();
}

Status NoOutputs(ShapeContext&) { return OkStatus(); }

// The variable's shape is not known from its handle, so the gather's output is not either.
Status UnknownOutput(ShapeContext& c) {
  c.set_output(0, PartialShape::Unknown());
  return OkStatus();
}

StatusOr<std::unique_ptr<OpKernel>> MakeResourceGatherKernel(OpKernelConstruction& c) {
  int64_t batch_dims = 0;
  CLAB_RETURN_IF_ERROR(c.GetAttr("batch_dims", &batch_dims));
  if (batch_dims != 0)
    return errors::Unimplemented("Node '", c.name(), "' (op ResourceGather): batch_dims = ", batch_dims,
                                 " is not supported (only 0)");
  return WithDtype(ResourceGatherCompute, /*expensive=*/true)(c);
}

}  // namespace

void RegisterResourceVariableOps(OpRegistry& registry) {
  registry.Register("VarHandleOp")
      .Output("resource: resource")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .Attr("dtype: type")
      .Attr("shape: shape")
      .Stateful()
      .SetShapeFn(HandleShape)
      .Kernel("CPU", MakeVarHandleKernel)
      .Summary("A handle to a resource variable of the device, created on first use.")
      .Group("state");
  registry.Register("ReadVariableOp")
      .Input("resource: resource")
      .Output("value: dtype")
      .Attr("dtype: type")
      .Stateful()
      .SetShapeFn(UnknownOutput)
      .Kernel("CPU", WithDtype(ReadVariableCompute))
      .Summary("The current value of a resource variable.")
      .Group("state");
  registry.Register("AssignVariableOp")
      .Input("resource: resource")
      .Input("value: dtype")
      .Attr("dtype: type")
      .Stateful()
      .SetShapeFn(NoOutputs)
      .Kernel("CPU", WithDtype([](OpKernelContext* ctx, DataType dtype) { AssignVariableCompute(ctx, dtype, 0); }))
      .Summary("Sets a resource variable to value.")
      .Group("state");
  registry.Register("AssignAddVariableOp")
      .Input("resource: resource")
      .Input("value: dtype")
      .Attr("dtype: type")
      .Stateful()
      .SetShapeFn(NoOutputs)
      .Kernel("CPU", WithDtype([](OpKernelContext* ctx, DataType dtype) { AssignVariableCompute(ctx, dtype, 1); }))
      .Summary("Adds value to a resource variable.")
      .Group("state");
  registry.Register("AssignSubVariableOp")
      .Input("resource: resource")
      .Input("value: dtype")
      .Attr("dtype: type")
      .Stateful()
      .SetShapeFn(NoOutputs)
      .Kernel("CPU", WithDtype([](OpKernelContext* ctx, DataType dtype) { AssignVariableCompute(ctx, dtype, -1); }))
      .Summary("Subtracts value from a resource variable.")
      .Group("state");
  registry.Register("VarIsInitializedOp")
      .Input("resource: resource")
      .Output("is_initialized: bool")
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, PartialShape::Scalar());
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(VarIsInitializedCompute, /*expensive=*/false))
      .Summary("Whether a resource variable has been assigned a value.")
      .Group("state");
  registry.Register("ResourceGather")
      .Input("resource: resource")
      .Input("indices: Tindices")
      .Output("output: dtype")
      .Attr("batch_dims: int = 0")
      .Attr("validate_indices: bool = true")
      .Attr("dtype: type")
      .Attr("Tindices: {int32, int64}")
      .Stateful()
      .SetShapeFn(UnknownOutput)
      .Kernel("CPU", MakeResourceGatherKernel)
      .Summary("Rows of a resource variable at the given indices (an embedding lookup).")
      .Group("state");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kResourceVariableOpFamily("resource variable", RegisterResourceVariableOps);

}  // namespace clab
