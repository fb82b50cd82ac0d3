// Variables: VariableV2 holds state in the device's ResourceMgr; Assign, AssignAdd and
// AssignSub write it through the reference VariableV2 outputs; CountUpTo increments an
// integer variable until it reaches a limit.
//
// Writes are copy-on-write: a variable's buffer is updated in place only while nobody else
// holds it, so a value read earlier in the step (an Identity, a fetch) never changes under
// its reader.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "clab/runtime/ResourceMgr.h"
#include "ops/ArrayOpsInternal.h"

#include <cstring>
#include <type_traits>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;
using array_internal::InputNodeName;
using array_internal::NodeSuffix;
using array_internal::OnlyVariableHolds;
using array_internal::ReadInput;
using array_internal::UninitializedError;

// ---- VariableV2 ----------------------------------------------------------------------------

class VariableKernel : public OpKernel {
 public:
  VariableKernel(DataType dtype, PartialShape shape, std::string container, std::string name)
      : dtype_(dtype), shape_(std::move(shape)), container_(std::move(container)), name_(std::move(name)) {}

  void Compute(OpKernelContext* ctx) override {
    // Looked up every step rather than cached: a session reset clears the ResourceMgr.
    auto var = ctx->resource_mgr()->LookupOrCreate<Variable>(
        container_, name_, [&] { return std::make_shared<Variable>(dtype_, shape_); });
    if (!var.ok()) return ctx->SetStatus(errors::Annotate(var.status(), clab::StrCat("Variable '", name_, "': ")));
    if ((*var)->dtype() != dtype_)
      return FailInvalidArgument(ctx, "Variable '", name_, "' in container '", container_,
                                 "' already exists with dtype ", DataTypeName((*var)->dtype()), ", but node '",
                                 ctx->name(), "' declares ", DataTypeName(dtype_));
    ctx->set_output_ref(0, std::move(var).value());
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_;
  PartialShape shape_;
  std::string container_;
  std::string name_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeVariableKernel(OpKernelConstruction& c) {
  DataType dtype = DT_INVALID;
  PartialShape shape;
  std::string container, shared_name;
  CLAB_RETURN_IF_ERROR(c.GetAttr("dtype", &dtype));
  CLAB_RETURN_IF_ERROR(c.GetAttr("shape", &shape));
  CLAB_RETURN_IF_ERROR(c.GetAttr("container", &container));
  CLAB_RETURN_IF_ERROR(c.GetAttr("shared_name", &shared_name));
  return std::unique_ptr<OpKernel>(std::make_unique<VariableKernel>(dtype, std::move(shape), std::move(container),
                                                                    shared_name.empty() ? c.name() : shared_name));
}

Status VariableShape(ShapeContext& c) {
  PartialShape shape;
  CLAB_RETURN_IF_ERROR(c.GetAttr("shape", &shape));
  c.set_output(0, shape);
  return OkStatus();
}

// ---- Writes --------------------------------------------------------------------------------

struct WriteTarget {
  std::shared_ptr<Variable> var;
  std::string name;  // the variable's node, for messages
  Tensor value;
};

// The variable behind input 0 and the value of input 1, with matching dtypes.
bool PrepareWrite(OpKernelContext* ctx, WriteTarget* target) {
  target->name = InputNodeName(ctx->node(), 0);
  target->var = ctx->input_ref(0);
  if (!target->var) {
    FailInvalidArgument(ctx, ctx->node().op(), " needs a variable reference as input 0, but '", target->name,
                        "' gives a value");
    return false;
  }
  if (!ReadInput(ctx, 1, &target->value)) return false;
  if (target->value.dtype() != target->var->dtype()) {
    FailInvalidArgument(ctx, "Cannot assign a ", DataTypeName(target->value.dtype()), " value to variable '",
                        target->name, "' of type ", DataTypeName(target->var->dtype()));
    return false;
  }
  return true;
}

void CopyInto(const Tensor& from, Tensor* to) {
  if (from.dtype() == DT_STRING) {
    std::copy(from.data<std::string>(), from.data<std::string>() + from.NumElements(), to->data<std::string>());
  } else {
    std::memcpy(to->raw_data(), from.raw_data(), from.TotalBytes());
  }
}

class AssignKernel : public OpKernel {
 public:
  explicit AssignKernel(bool validate_shape) : validate_shape_(validate_shape) {}

  void Compute(OpKernelContext* ctx) override {
    WriteTarget w;
    if (!PrepareWrite(ctx, &w)) return;
    // Always locked, whatever use_locking says: an unlocked write racing a copy-on-write
    // swap could lose the buffer, and the lock costs little next to a step.
    std::lock_guard<std::mutex> lock(w.var->mu());
    Tensor& current = w.var->value();
    if (validate_shape_) {
      const PartialShape lhs = current.IsInitialized() ? PartialShape(current.shape()) : w.var->declared_shape();
      const bool fits = current.IsInitialized() ? current.shape() == w.value.shape()
                                                : lhs.IsCompatibleWith(PartialShape(w.value.shape()));
      if (!fits)
        return FailInvalidArgument(ctx,
                                   "Assign requires shapes of both tensors to match. lhs shape= ", lhs.DebugString(),
                                   " rhs shape= ", w.value.shape().DebugString(), " (variable '", w.name, "')");
    }
    if (current.IsInitialized() && current.shape() == w.value.shape() && w.value.OnHost() &&
        OnlyVariableHolds(ctx, current, w.value)) {
      if (!current.SharesBufferWith(w.value)) CopyInto(w.value, &current);
    } else {
      // Share the value's buffer: whoever else holds it will also copy before writing.
      current = w.value;
    }
    ctx->set_output_ref(0, w.var);
  }

 private:
  bool validate_shape_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeAssignKernel(OpKernelConstruction& c) {
  bool validate_shape = true;
  CLAB_RETURN_IF_ERROR(c.GetAttr("validate_shape", &validate_shape));
  return std::unique_ptr<OpKernel>(std::make_unique<AssignKernel>(validate_shape));
}

// Integer updates wrap instead of overflowing into undefined behaviour.
template <typename T, bool kSubtract>
T Update(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(kSubtract ? static_cast<U>(a) - static_cast<U>(b) : static_cast<U>(a) + static_cast<U>(b));
  } else {
    return kSubtract ? a - b : a + b;
  }
}

template <typename T, bool kSubtract>
void UpdateElements(const Tensor& old_value, const Tensor& delta, Tensor* out) {
  const T* a = old_value.data<T>();
  const T* b = delta.data<T>();
  T* o = out->data<T>();
  const int64_t n = old_value.NumElements();
  for (int64_t k = 0; k < n; ++k) o[k] = Update<T, kSubtract>(a[k], b[k]);
}

template <bool kSubtract>
void AssignUpdateCompute(OpKernelContext* ctx) {
  WriteTarget w;
  if (!PrepareWrite(ctx, &w)) return;
  std::lock_guard<std::mutex> lock(w.var->mu());
  Tensor& current = w.var->value();
  if (!current.IsInitialized()) return ctx->SetStatus(UninitializedError(w.name, ctx->name()));
  if (current.shape() != w.value.shape())
    return FailInvalidArgument(ctx, "Cannot update variable '", w.name, "' with shape ", current.shape().DebugString(),
                               " using a Tensor with shape ", w.value.shape().DebugString(), ", shapes must be equal.");
  // Decide before taking another handle on the buffer, which would count as a holder.
  const bool in_place = OnlyVariableHolds(ctx, current, w.value);
  Tensor target = in_place ? current : Tensor(current.dtype(), current.shape(), ctx->device()->allocator());
  bool supported = true;
  CLAB_SWITCH_REAL_TYPES(current.dtype(), T, (UpdateElements<T, kSubtract>(current, w.value, &target)),
                         supported = false);
  if (!supported)
    return FailInvalidArgument(ctx, ctx->node().op(), " does not support ", DataTypeName(current.dtype()));
  current = std::move(target);
  ctx->set_output_ref(0, w.var);
}

// ---- CountUpTo ---------------------------------------------------------------------------

// Outputs the variable's value and adds 1 to it; OUT_OF_RANGE once the value has reached
// `limit` (the variable then stays unchanged).
template <typename T>
class CountUpToKernel : public OpKernel {
 public:
  explicit CountUpToKernel(int64_t limit) : limit_(limit) {}

  void Compute(OpKernelContext* ctx) override {
    const std::shared_ptr<Variable>& var = ctx->input_ref(0);
    const std::string name = InputNodeName(ctx->node(), 0);
    if (!var)
      return FailInvalidArgument(ctx, "CountUpTo needs a variable reference as input 0, but '", name,
                                 "' gives a value");
    std::lock_guard<std::mutex> lock(var->mu());
    Tensor& current = var->value();
    if (!current.IsInitialized()) return ctx->SetStatus(UninitializedError(name, ctx->name()));
    if (current.dtype() != DataTypeOf<T>::value || current.shape().rank() != 0)
      return FailInvalidArgument(ctx, "CountUpTo needs a scalar ", DataTypeName(DataTypeOf<T>::value),
                                 " variable, but '", name, "' holds ", DataTypeName(current.dtype()), " ",
                                 current.shape().DebugString());
    const T before = current.data<T>()[0];
    if (static_cast<int64_t>(before) >= limit_)
      return ctx->SetStatus(errors::OutOfRange("Reached limit of ", limit_, NodeSuffix(ctx->name())));
    Tensor out(DataTypeOf<T>::value, TensorShape{});
    out.data<T>()[0] = before;
    const bool in_place = OnlyVariableHolds(ctx, current, Tensor());
    Tensor next = in_place ? current : Tensor(current.dtype(), current.shape(), ctx->device()->allocator());
    next.data<T>()[0] = before + 1;
    current = std::move(next);
    ctx->set_output(0, std::move(out));
  }

 private:
  const int64_t limit_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeCountUpToKernel(OpKernelConstruction& c) {
  int64_t limit = 0;
  CLAB_RETURN_IF_ERROR(c.GetAttr("limit", &limit));
  if (c.output_type(0) == DT_INT64) return std::unique_ptr<OpKernel>(std::make_unique<CountUpToKernel<int64_t>>(limit));
  return std::unique_ptr<OpKernel>(std::make_unique<CountUpToKernel<int32_t>>(limit));
}

Status CountUpToShape(ShapeContext& c) {
  const PartialShape& ref = c.input_shape(0);
  if (ref.known_rank() && ref.rank() != 0)
    return c.MakeError(clab::StrCat("the variable must be a scalar but has rank ", ref.rank()));
  c.set_output(0, PartialShape::Scalar());
  return OkStatus();
}

// ---- Shape functions -----------------------------------------------------------------------

Status MergeInputShapes(ShapeContext& c) {
  auto merged = c.input_shape(0).MergeWith(c.input_shape(1));
  if (!merged.ok()) return c.MakeError(std::string(merged.status().message()));
  c.set_output(0, std::move(merged).value());
  return OkStatus();
}

Status AssignShape(ShapeContext& c) {
  bool validate_shape = true;
  CLAB_RETURN_IF_ERROR(c.GetAttr("validate_shape", &validate_shape));
  if (!validate_shape) {
    c.set_output(0, c.input_shape(1));
    return OkStatus();
  }
  return MergeInputShapes(c);
}

}  // namespace

void RegisterStateOps(OpRegistry& registry) {
  registry.Register("VariableV2")
      .Output("ref: Ref(dtype)")
      .Attr("shape: shape")
      .Attr("dtype: type")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .SetShapeFn(VariableShape)
      .Kernel("CPU", MakeVariableKernel)
      .Stateful()
      .Summary("A mutable tensor that lives across steps, shared by name on its device")
      .Group("state");

  registry.Register("Assign")
      .Input("ref: Ref(T)")
      .Input("value: T")
      .Output("output_ref: Ref(T)")
      .Attr("T: type")
      .Attr("validate_shape: bool = true")
      .Attr("use_locking: bool = true")
      .SetShapeFn(AssignShape)
      .Kernel("CPU", MakeAssignKernel)
      .Stateful()
      .Summary("Sets a variable to a value")
      .Group("state");

  registry.Register("AssignAdd")
      .Input("ref: Ref(T)")
      .Input("value: T")
      .Output("output_ref: Ref(T)")
      .Attr("T: {float, double, int32, int64}")
      .Attr("use_locking: bool = false")
      .SetShapeFn(MergeInputShapes)
      .Kernel("CPU", LambdaKernel(AssignUpdateCompute<false>))
      .Stateful()
      .Summary("Adds a value to a variable")
      .Group("state");

  registry.Register("AssignSub")
      .Input("ref: Ref(T)")
      .Input("value: T")
      .Output("output_ref: Ref(T)")
      .Attr("T: {float, double, int32, int64}")
      .Attr("use_locking: bool = false")
      .SetShapeFn(MergeInputShapes)
      .Kernel("CPU", LambdaKernel(AssignUpdateCompute<true>))
      .Stateful()
      .Summary("Subtracts a value from a variable")
      .Group("state");

  registry.Register("CountUpTo")
      .Input("ref: Ref(T)")
      .Output("output: T")
      .Attr("limit: int")
      .Attr("T: {int32, int64}")
      .SetShapeFn(CountUpToShape)
      .Kernel("CPU", MakeCountUpToKernel)
      .Stateful()
      .Summary("The variable's value, then adds 1 to it; fails with OUT_OF_RANGE at limit")
      .Group("state");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kStateOpFamily("state", RegisterStateOps);

}  // namespace clab
