// Gradient accumulators for synchronous training: ConditionalAccumulator makes (once per
// device) the accumulator its handle names; AccumulatorApplyGradient adds a replica's
// gradient unless it is stale; AccumulatorTakeGradient waits for enough of them and returns
// their mean; AccumulatorSetGlobalStep and AccumulatorNumAccumulated. Names and attrs are
// TensorFlow 1.x's. _AccumulatorCancelTakes is ClusterLab's own: it releases a take that
// waits for gradients that will not come (the chief stopping), which TensorFlow could not.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/GradientAccumulator.h"
#include "ops/ResourceHandles.h"

namespace clab {
namespace {

using array_internal::FailInvalidArgument;

class AccumulatorKernel : public OpKernel {
 public:
  AccumulatorKernel(std::string container, std::string name, DataType dtype, PartialShape shape, bool mean)
      : container_(std::move(container)), name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)), mean_(mean) {
  }

  void Compute(OpKernelContext* ctx) override {
    auto accumulator = ctx->resource_mgr()->LookupOrCreate<GradientAccumulator>(
        container_, name_, [&] { return std::make_shared<GradientAccumulator>(name_, dtype_, shape_, mean_); });
    if (!accumulator.ok()) return ctx->SetStatus(accumulator.status());
    if ((*accumulator)->dtype() != dtype_)
      return FailInvalidArgument(ctx, "ConditionalAccumulator '", name_, "' already exists with dtype ",
                                 DataTypeName((*accumulator)->dtype()));
    ctx->set_output(0, resource_handles::MakeHandle(container_, name_));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string container_, name_;
  DataType dtype_;
  PartialShape shape_;
  bool mean_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeAccumulatorKernel(OpKernelConstruction& c) {
  std::string container, name, reduction;
  CLAB_RETURN_IF_ERROR(resource_handles::ResourceName(c, &container, &name));
  DataType dtype = DT_INVALID;
  PartialShape shape;
  CLAB_RETURN_IF_ERROR(c.GetAttr("dtype", &dtype));
  CLAB_RETURN_IF_ERROR(c.GetAttr("shape", &shape));
  CLAB_RETURN_IF_ERROR(c.GetAttr("reduction_type", &reduction));
  return std::unique_ptr<OpKernel>(
      std::make_unique<AccumulatorKernel>(container, name, dtype, std::move(shape), reduction == "MEAN"));
}

// Reads an int32 or int64 scalar input.
bool ReadScalarInt(OpKernelContext* ctx, int i, int64_t* value) {
  const Tensor& t = ctx->input(i);
  if (t.NumElements() == 1 && t.dtype() == DT_INT64) *value = t.data<int64_t>()[0];
  else if (t.NumElements() == 1 && t.dtype() == DT_INT32) *value = t.data<int32_t>()[0];
  else {
    FailInvalidArgument(ctx, "input ", i, " must be an integer scalar, got ", DataTypeName(t.dtype()), " ",
                        t.shape().DebugString());
    return false;
  }
  return true;
}

void ApplyGradientKernel(OpKernelContext* ctx) {
  auto accumulator = resource_handles::Lookup<GradientAccumulator>(ctx, 0, "ConditionalAccumulator");
  int64_t local_step = 0;
  if (!accumulator || !ReadScalarInt(ctx, 1, &local_step)) return;
  auto applied = accumulator->Apply(local_step, ctx->input(2));
  if (!applied.ok()) ctx->SetStatus(applied.status());
}

class TakeGradientKernel : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(errors::Internal("take is asynchronous")); }
  bool IsAsync() const override { return true; }

  void ComputeAsync(OpKernelContext* ctx, std::function<void()> done) override {
    auto accumulator = resource_handles::Lookup<GradientAccumulator>(ctx, 0, "ConditionalAccumulator");
    int64_t required = 0;
    if (!accumulator || !ReadScalarInt(ctx, 1, &required)) return done();
    accumulator->TakeAsync(required, [ctx, done = std::move(done)](const Status& s, Tensor mean) {
      if (s.ok()) ctx->set_output(0, std::move(mean));
      else ctx->SetStatus(s);
      done();
    });
  }
};

void SetGlobalStepKernel(OpKernelContext* ctx) {
  auto accumulator = resource_handles::Lookup<GradientAccumulator>(ctx, 0, "ConditionalAccumulator");
  int64_t step = 0;
  if (accumulator && ReadScalarInt(ctx, 1, &step)) accumulator->SetGlobalStep(step);
}

void NumAccumulatedKernel(OpKernelContext* ctx) {
  auto accumulator = resource_handles::Lookup<GradientAccumulator>(ctx, 0, "ConditionalAccumulator");
  if (accumulator) ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(accumulator->num_accumulated())));
}

void CancelTakesKernel(OpKernelContext* ctx) {
  auto accumulator = resource_handles::Lookup<GradientAccumulator>(ctx, 0, "ConditionalAccumulator");
  if (accumulator)
    accumulator->CancelPendingTakes(errors::Cancelled("The take from ConditionalAccumulator '", accumulator->name(),
                                                      "' was cancelled: the chief is stopping"));
}

Status HandleShape(ShapeContext& c) {
  c.set_output(0, PartialShape(std::vector<int64_t>{2}));
  return OkStatus();
}

Status ScalarShape(ShapeContext& c) {
  c.set_output(0, PartialShape::Scalar());
  return OkStatus();
}

}  // namespace

void RegisterAccumulatorOps(OpRegistry& registry) {
  registry.Register("ConditionalAccumulator")
      .Output("handle: string")
      .Attr("dtype: {float, double}")
      .Attr("shape: shape")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .Attr("reduction_type: {'MEAN', 'SUM'} = 'MEAN'")
      .Stateful()
      .SetShapeFn(HandleShape)
      .Kernel("CPU", MakeAccumulatorKernel)
      .Summary("Sums the gradients of one variable from synchronous replicas, dropping stale ones.")
      .Group("train");
  registry.Register("AccumulatorApplyGradient")
      .Input("handle: string")
      .Input("local_step: int64")
      .Input("gradient: dtype")
      .Attr("dtype: {float, double}")
      .Stateful()
      .Kernel("CPU", LambdaKernel(ApplyGradientKernel, /*expensive=*/false))
      .Summary("Adds a gradient computed at local_step; one older than the accumulator's step is dropped.")
      .Group("train");
  registry.Register("AccumulatorTakeGradient")
      .Input("handle: string")
      .Input("num_required: int32")
      .Output("average: dtype")
      .Attr("dtype: {float, double}")
      .Stateful()
      .Kernel("CPU",
              [](OpKernelConstruction&) -> StatusOr<std::unique_ptr<OpKernel>> {
                return std::unique_ptr<OpKernel>(std::make_unique<TakeGradientKernel>());
              })
      .Summary("Waits for num_required gradients and returns their mean; the accumulator's step moves on by one.")
      .Group("train");
  registry.Register("AccumulatorSetGlobalStep")
      .Input("handle: string")
      .Input("new_global_step: int64")
      .Stateful()
      .Kernel("CPU", LambdaKernel(SetGlobalStepKernel, /*expensive=*/false))
      .Summary("Sets the accumulator's step: gradients from earlier steps are stale from now on.")
      .Group("train");
  registry.Register("AccumulatorNumAccumulated")
      .Input("handle: string")
      .Output("num_accumulated: int32")
      .Stateful()
      .SetShapeFn(ScalarShape)
      .Kernel("CPU", LambdaKernel(NumAccumulatedKernel, /*expensive=*/false))
      .Summary("How many gradients the accumulator holds now.")
      .Group("train");
  registry.Register("_AccumulatorCancelTakes")
      .Input("handle: string")
      .Stateful()
      .Kernel("CPU", LambdaKernel(CancelTakesKernel, /*expensive=*/false))
      .Summary("Fails the takes that wait on the accumulator now (CANCELLED); later takes wait as usual.")
      .Group("train");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kAccumulatorOpFamily("accumulator", RegisterAccumulatorOps);

}  // namespace clab
