// Ops that report on variables without reading their values: what the monitored session's
// readiness check runs on every variable's own device.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"

namespace clab {

void RegisterVariableStatusOps(OpRegistry& registry) {
  registry.Register("IsVariableInitialized")
      .Input("ref: Ref(dtype)")
      .Output("is_initialized: bool")
      .Attr("dtype: type")
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, PartialShape::Scalar());
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(
                         [](OpKernelContext* ctx) {
                           const auto& var = ctx->input_ref(0);
                           bool initialized = false;
                           if (var) {
                             std::lock_guard<std::mutex> lock(var->mu());
                             initialized = var->initialized();
                           }
                           ctx->set_output(0, Tensor::Scalar<bool>(initialized));
                         },
                         /*expensive=*/false))
      .Summary("Whether a variable has been assigned a value.")
      .Group("state");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kVariableStatusOpFamily("variable status", RegisterVariableStatusOps);

}  // namespace clab
