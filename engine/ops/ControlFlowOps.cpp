// Control flow as tf.cond writes it: Switch forwards its data to output_true or output_false
// by its predicate and marks the other dead; the nodes of the branch not taken see a dead
// input and do not run (the executor propagates deadness); Merge forwards whichever input is
// live, with its index. RefSwitch does the same for a variable reference. Assert fails the
// step when its condition is false; ControlTrigger is a NoOp that runs on either branch.
// The while-loop ops (Enter, Exit, NextIteration, LoopCond and their Ref forms) forward their
// input; the executor moves the value between execution frames and iterations (Enter into
// the loop's frame, NextIteration to the next iteration, Exit back out; see LoopStep.cpp).
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"

namespace clab::array_internal {
namespace {

void SwitchCompute(OpKernelContext* ctx) {
  const Tensor& pred = ctx->input(1);
  if (pred.dtype() != DT_BOOL || pred.NumElements() != 1)
    return FailInvalidArgument(ctx, "The second input must be a scalar bool, but it has shape ",
                               pred.shape().DebugString());
  const int taken = pred.data<bool>()[0] ? 1 : 0;
  if (const auto& ref = ctx->input_ref(0)) {
    ctx->set_output_ref(taken, ref);
  } else {
    ctx->set_output(taken, ctx->input(0));
  }
  // The other output stays unproduced: the executor marks it dead.
}

void MergeCompute(OpKernelContext* ctx) {
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    if (!ctx->input(i).IsInitialized() && !ctx->input_ref(i)) continue;  // dead
    if (const auto& ref = ctx->input_ref(i)) {
      ctx->set_output_ref(0, ref);
    } else {
      ctx->set_output(0, ctx->input(i));
    }
    ctx->set_output(1, Tensor::Scalar<int32_t>(i));
    return;
  }
  // Every input dead: nothing is produced, and the executor marks the merge dead too.
}

// The loop ops' kernel: the value (or reference) passes through unchanged.
void ForwardCompute(OpKernelContext* ctx) {
  if (const auto& ref = ctx->input_ref(0)) {
    ctx->set_output_ref(0, ref);
  } else {
    ctx->set_output(0, ctx->input(0));
  }
}

void AssertCompute(OpKernelContext* ctx) {
  const Tensor& condition = ctx->input(0);
  if (condition.NumElements() == 1 && condition.data<bool>()[0]) return;
  std::string data;
  for (int i = 1; i < ctx->num_inputs(); ++i) data += (i > 1 ? ", " : "") + ctx->input(i).SummarizeValue(3);
  ctx->SetStatus(errors::InvalidArgument("assertion failed: [", data, "]", NodeSuffix(ctx->name())));
}

Status SwitchShape(ShapeContext& c) {
  c.set_output(0, c.input_shape(0));
  c.set_output(1, c.input_shape(0));
  return OkStatus();
}

Status MergeShape(ShapeContext& c) {
  PartialShape shape = c.input_shape(0);
  for (int i = 1; i < c.num_inputs(); ++i)
    if (!(c.input_shape(i) == shape)) shape = PartialShape::Unknown();
  c.set_output(0, shape);
  c.set_output(1, PartialShape::Scalar());
  return OkStatus();
}

Status SameShape(ShapeContext& c) {
  c.set_output(0, c.input_shape(0));
  return OkStatus();
}

void RegisterControlFlowOps(OpRegistry& registry) {
  registry.Register("Switch")
      .Input("data: T")
      .Input("pred: bool")
      .Output("output_false: T")
      .Output("output_true: T")
      .Attr("T: type")
      .SetShapeFn(SwitchShape)
      .Kernel("CPU", LambdaKernel(SwitchCompute, false))
      .Summary("data to output_true if pred, else to output_false; the other output is dead.")
      .Group("control");
  registry.Register("RefSwitch")
      .Input("data: Ref(T)")
      .Input("pred: bool")
      .Output("output_false: Ref(T)")
      .Output("output_true: Ref(T)")
      .Attr("T: type")
      .SetShapeFn(SwitchShape)
      .Kernel("CPU", LambdaKernel(SwitchCompute, false))
      .Summary("Switch for a variable reference.")
      .Group("control");
  registry.Register("Merge")
      .Input("inputs: N * T")
      .Output("output: T")
      .Output("value_index: int32")
      .Attr("T: type")
      .Attr("N: int >= 1")
      .SetShapeFn(MergeShape)
      .Kernel("CPU", LambdaKernel(MergeCompute, false))
      .Summary("The live one of its inputs, and its index (the end of a tf.cond).")
      .Group("control");
  registry.Register("Assert")
      .Input("condition: bool")
      .Input("data: T")
      .Attr("T: list(type)")
      .Attr("summarize: int = 3")
      .Stateful()
      .SetShapeFn([](ShapeContext&) { return OkStatus(); })
      .Kernel("CPU", LambdaKernel(AssertCompute, false))
      .Summary("Fails the step, showing data, when condition is false.")
      .Group("control");
  registry.Register("ControlTrigger")
      .SetShapeFn([](ShapeContext&) { return OkStatus(); })
      .Kernel("CPU", LambdaKernel([](OpKernelContext*) {}, false))
      .Summary("Does nothing; runs whichever branch its control inputs come from.")
      .Group("control");
  // Loops: the kernels forward; the executor's frames give the values their iteration.
  for (const bool ref : {false, true}) {
    const std::string prefix = ref ? "Ref" : "";
    const std::string data = ref ? "Ref(T)" : "T";
    registry.Register(prefix + "Enter")
        .Input("data: " + data)
        .Output("output: " + data)
        .Attr("T: type")
        .Attr("frame_name: string")
        .Attr("is_constant: bool = false")
        .Attr("parallel_iterations: int = 10")
        .SetShapeFn(SameShape)
        .Kernel("CPU", LambdaKernel(ForwardCompute, false))
        .Summary(ref ? "Enter for a variable reference."
                     : "Enters a while loop's frame (is_constant: the value is seen by every iteration).")
        .Group("control");
    registry.Register(prefix + "Exit")
        .Input("data: " + data)
        .Output("output: " + data)
        .Attr("T: type")
        .SetShapeFn(SameShape)
        .Kernel("CPU", LambdaKernel(ForwardCompute, false))
        .Summary(ref ? "Exit for a variable reference." : "Leaves a while loop's frame for its parent frame.")
        .Group("control");
    registry.Register(prefix + "NextIteration")
        .Input("data: " + data)
        .Output("output: " + data)
        .Attr("T: type")
        .SetShapeFn(SameShape)
        .Kernel("CPU", LambdaKernel(ForwardCompute, false))
        .Summary(ref ? "NextIteration for a variable reference." : "Hands a value to a loop's next iteration.")
        .Group("control");
  }
  registry.Register("RefMerge")
      .Input("inputs: Ref(N * T)")
      .Output("output: Ref(T)")
      .Output("value_index: int32")
      .Attr("T: type")
      .Attr("N: int >= 1")
      .SetShapeFn(MergeShape)
      .Kernel("CPU", LambdaKernel(MergeCompute, false))
      .Summary("Merge for variable references.")
      .Group("control");
  registry.Register("LoopCond")
      .Input("input: bool")
      .Output("output: bool")
      .SetShapeFn(SameShape)
      .Kernel("CPU", LambdaKernel(ForwardCompute, false))
      .Summary("A while loop's condition: feeds the Switch nodes that continue or leave the loop.")
      .Group("control");
}

}  // namespace

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kControlFlowOpFamily("control flow", RegisterControlFlowOps);

}  // namespace clab::array_internal
