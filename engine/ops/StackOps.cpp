// Stacks, where the gradient of a tf.while_loop keeps each iteration's forward values:
// StackV2 makes a stack for the running step and outputs its handle (a resource tensor
// [container, name]); StackPushV2 pushes a tensor and outputs it, StackPopV2 pops the last
// one, StackCloseV2 drops the stack. Stack, StackPush, StackPop and StackClose are the
// same ops as TensorFlow before 1.4 wrote them, with the handle a string reference.
// Pushing onto a full stack (max_size >= 0) or popping an empty one fails naming the stack.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "clab/runtime/ResourceMgr.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/ResourceHandles.h"
#include "ops/StepResources.h"

#include <atomic>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;

class Stack : public Resource {
 public:
  Stack(DataType dtype, int64_t max_size, std::string name) : dtype(dtype), max_size(max_size), name(std::move(name)) {}
  std::string DebugString() const override { return "Stack " + name + " of " + DataTypeName(dtype); }

  const DataType dtype;
  const int64_t max_size;  // < 0: unbounded
  const std::string name;
  std::mutex mu;
  std::vector<Tensor> values;
};

// The handle: input 0 itself (V2), or the value of the string reference (the old ops).
bool HandleOf(OpKernelContext* ctx, Tensor* handle) {
  if (ctx->input(0).IsInitialized()) {
    *handle = ctx->input(0);
    return true;
  }
  if (const auto& ref = ctx->input_ref(0)) {
    std::lock_guard<std::mutex> lock(ref->mu());
    *handle = ref->value();
    return true;
  }
  FailInvalidArgument(ctx, "input 0 is no stack handle");
  return false;
}

std::shared_ptr<Stack> LookupStack(OpKernelContext* ctx) {
  Tensor handle;
  if (!HandleOf(ctx, &handle)) return nullptr;
  if (handle.NumElements() != 2 || (handle.dtype() != DT_STRING && handle.dtype() != tensorflow::DT_RESOURCE)) {
    FailInvalidArgument(ctx, "input 0 must be a stack handle, got ", handle.DebugString());
    return nullptr;
  }
  auto stack = ctx->resource_mgr()->Lookup<Stack>(handle.data<std::string>()[0], handle.data<std::string>()[1]);
  if (!stack)
    ctx->SetStatus(errors::NotFound("Stack '", handle.data<std::string>()[1], "' does not exist on ",
                                    ctx->device()->name(), " (stacks live for one step)",
                                    array_internal::NodeSuffix(ctx->name())));
  return stack;
}

void CreateCompute(OpKernelContext* ctx, DataType dtype, const std::string& stack_name, bool ref_handle) {
  static std::atomic<int64_t> next_id{0};
  int64_t max_size = -1;
  if (ctx->num_inputs() > 0) {
    const Tensor& size = ctx->input(0);
    if (size.NumElements() != 1) return FailInvalidArgument(ctx, "max_size must be a scalar");
    max_size = size.data<int32_t>()[0];
  }
  const std::string container = step_resources::StepContainer(ctx, "stack");
  const std::string name = (stack_name.empty() ? ctx->name() : stack_name) + ":" + std::to_string(next_id.fetch_add(1));
  auto made = ctx->resource_mgr()->LookupOrCreate<Stack>(
      container, name, [&] { return std::make_shared<Stack>(dtype, max_size, name); });
  if (!made.ok()) return ctx->SetStatus(made.status());
  if (!ref_handle) {
    ctx->set_output(0, resource_handles::MakeResourceHandle(container, name));
    return;
  }
  auto handle = std::make_shared<Variable>(DT_STRING, PartialShape({2}));
  handle->value() = resource_handles::MakeHandle(container, name);
  ctx->set_output_ref(0, std::move(handle));
}

void PushCompute(OpKernelContext* ctx) {
  auto stack = LookupStack(ctx);
  if (!stack) return;
  const Tensor& value = ctx->input(1);
  std::lock_guard<std::mutex> lock(stack->mu);
  if (value.dtype() != stack->dtype)
    return FailInvalidArgument(ctx, "Stack ", stack->name, " holds ", DataTypeName(stack->dtype), "; cannot push a ",
                               DataTypeName(value.dtype()));
  if (stack->max_size >= 0 && static_cast<int64_t>(stack->values.size()) >= stack->max_size)
    return FailInvalidArgument(ctx, "Stack[", stack->name, "] overflowed its max_size (", stack->max_size, ")");
  stack->values.push_back(value);
  ctx->set_output(0, value);
}

void PopCompute(OpKernelContext* ctx, DataType dtype) {
  auto stack = LookupStack(ctx);
  if (!stack) return;
  std::lock_guard<std::mutex> lock(stack->mu);
  if (stack->dtype != dtype)
    return FailInvalidArgument(ctx, "Stack ", stack->name, " holds ", DataTypeName(stack->dtype), ", the node pops ",
                               DataTypeName(dtype));
  if (stack->values.empty()) return FailInvalidArgument(ctx, "Stack[", stack->name, "] is empty.");
  ctx->set_output(0, std::move(stack->values.back()));
  stack->values.pop_back();
}

void CloseCompute(OpKernelContext* ctx) {
  auto stack = LookupStack(ctx);
  if (!stack) return;
  std::lock_guard<std::mutex> lock(stack->mu);
  stack->values.clear();
}

KernelFactory CreateFactory(bool ref_handle) {
  return [ref_handle](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
    DataType dtype = DT_INVALID;
    std::string stack_name;
    CLAB_RETURN_IF_ERROR(c.GetAttr("elem_type", &dtype));
    CLAB_RETURN_IF_ERROR(c.GetAttr("stack_name", &stack_name));
    return LambdaKernel(
        [dtype, stack_name, ref_handle](OpKernelContext* ctx) { CreateCompute(ctx, dtype, stack_name, ref_handle); },
        false)(c);
  };
}

KernelFactory PopFactory() {
  return [](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
    DataType dtype = DT_INVALID;
    CLAB_RETURN_IF_ERROR(c.GetAttr("elem_type", &dtype));
    return LambdaKernel([dtype](OpKernelContext* ctx) { PopCompute(ctx, dtype); }, false)(c);
  };
}

Status Shape(ShapeContext& c, PartialShape shape) {
  if (c.num_outputs() > 0) c.set_output(0, std::move(shape));
  return OkStatus();
}

}  // namespace

void RegisterStackOps(OpRegistry& registry) {
  for (const bool v2 : {true, false}) {
    const std::string handle = v2 ? "handle: resource" : "handle: Ref(string)";
    const std::string suffix = v2 ? "V2" : "";
    auto create = registry.Register("Stack" + suffix);
    if (v2) create.Input("max_size: int32");
    create.Output(handle)
        .Attr("elem_type: type")
        .Attr("stack_name: string = ''")
        .Stateful()
        .SetShapeFn([](ShapeContext& c) { return Shape(c, PartialShape({2})); })
        .Kernel("CPU", CreateFactory(!v2))
        .Summary("A stack of tensors for this step (a while loop's gradient keeps its forward values in one).")
        .Group("control");
    registry.Register("StackPush" + suffix)
        .Input(handle)
        .Input("elem: T")
        .Output("output: T")
        .Attr("T: type")
        .Attr("swap_memory: bool = false")
        .Stateful()
        .SetShapeFn([](ShapeContext& c) { return Shape(c, c.input_shape(1)); })
        .Kernel("CPU", LambdaKernel(PushCompute, false))
        .Summary("Pushes elem onto a stack and outputs it.")
        .Group("control");
    registry.Register("StackPop" + suffix)
        .Input(handle)
        .Output("elem: elem_type")
        .Attr("elem_type: type")
        .Stateful()
        .SetShapeFn([](ShapeContext& c) { return Shape(c, PartialShape::Unknown()); })
        .Kernel("CPU", PopFactory())
        .Summary("Pops the tensor last pushed onto a stack.")
        .Group("control");
    registry.Register("StackClose" + suffix)
        .Input(handle)
        .Stateful()
        .SetShapeFn([](ShapeContext& c) { return Shape(c, PartialShape::Unknown()); })
        .Kernel("CPU", LambdaKernel(CloseCompute, false))
        .Summary("Drops a stack's tensors.")
        .Group("control");
  }
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kStackOpFamily("stack", RegisterStackOps);

}  // namespace clab
