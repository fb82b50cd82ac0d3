// Queues: FIFOQueue makes (once per device) the queue its handle names; QueueEnqueue,
// QueueEnqueueMany and QueueDequeue wait for room or an element without holding a thread;
// QueueClose and QueueSize. The names and attrs are TensorFlow 1.x's; handles are
// [container, name] string vectors (resource_handles).
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/FifoQueue.h"
#include "ops/ResourceHandles.h"

#include <cstring>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;

std::vector<PartialShape> ShapesAttr(const tensorflow::NodeDef& node) {
  std::vector<PartialShape> shapes;
  auto found = node.attr().find("shapes");
  if (found == node.attr().end()) return shapes;
  for (const auto& proto : found->second.list().shape()) shapes.push_back(PartialShape::FromProto(proto));
  return shapes;
}

class FifoQueueKernel : public OpKernel {
 public:
  FifoQueueKernel(std::string container, std::string name, std::vector<DataType> types,
                  std::vector<PartialShape> shapes, int64_t capacity)
      : container_(std::move(container)), name_(std::move(name)), types_(std::move(types)), shapes_(std::move(shapes)),
        capacity_(capacity) {}

  void Compute(OpKernelContext* ctx) override {
    auto queue = ctx->resource_mgr()->LookupOrCreate<FifoQueue>(
        container_, name_, [&] { return std::make_shared<FifoQueue>(name_, types_, shapes_, capacity_); });
    if (!queue.ok()) return ctx->SetStatus(queue.status());
    if ((*queue)->types() != types_)
      return FailInvalidArgument(ctx, "FIFOQueue '", name_, "' already exists with ", (*queue)->types().size(),
                                 " components of other types");
    ctx->set_output(0, resource_handles::MakeHandle(container_, name_));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string container_, name_;
  std::vector<DataType> types_;
  std::vector<PartialShape> shapes_;
  int64_t capacity_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeFifoQueueKernel(OpKernelConstruction& c) {
  std::string container, name;
  CLAB_RETURN_IF_ERROR(resource_handles::ResourceName(c, &container, &name));
  std::vector<DataType> types;
  int64_t capacity = -1;
  CLAB_RETURN_IF_ERROR(c.GetAttr("component_types", &types));
  CLAB_RETURN_IF_ERROR(c.GetAttr("capacity", &capacity));
  std::vector<PartialShape> shapes = ShapesAttr(c.node());
  if (!shapes.empty() && shapes.size() != types.size())
    return errors::InvalidArgument("FIFOQueue '", c.name(), "': ", shapes.size(), " shapes for ", types.size(),
                                   " component types");
  return std::unique_ptr<OpKernel>(
      std::make_unique<FifoQueueKernel>(container, name, std::move(types), std::move(shapes), capacity));
}

// Splits each component along its first dimension into `count` tuples.
StatusOr<std::vector<FifoQueue::Tuple>> SplitMany(OpKernelContext* ctx) {
  const int components = ctx->num_inputs() - 1;
  if (components < 1) return errors::InvalidArgument("QueueEnqueueMany needs at least one component");
  const Tensor& first = ctx->input(1);
  if (first.shape().rank() < 1)
    return errors::InvalidArgument("QueueEnqueueMany components must have a first dimension, got a scalar");
  const int64_t count = first.shape().dim(0);
  std::vector<FifoQueue::Tuple> tuples(static_cast<size_t>(count));
  for (int c = 0; c < components; ++c) {
    const Tensor& all = ctx->input(c + 1);
    if (all.shape().rank() < 1 || all.shape().dim(0) != count)
      return errors::InvalidArgument("QueueEnqueueMany component ", c, " has shape ", all.shape().DebugString(),
                                     "; every component needs a first dimension of ", count);
    std::vector<int64_t> dims(all.shape().dims().begin() + 1, all.shape().dims().end());
    const TensorShape element_shape(dims);
    for (int64_t k = 0; k < count; ++k) {
      Tensor element(all.dtype(), element_shape);
      if (all.dtype() == DT_STRING) {
        const int64_t n = element.NumElements();
        std::copy(all.data<std::string>() + k * n, all.data<std::string>() + (k + 1) * n, element.data<std::string>());
      } else {
        const size_t bytes = element.TotalBytes();
        std::memcpy(element.raw_data(), static_cast<const char*>(all.raw_data()) + k * bytes, bytes);
      }
      tuples[static_cast<size_t>(k)].push_back(std::move(element));
    }
  }
  return tuples;
}

class EnqueueKernel : public OpKernel {
 public:
  explicit EnqueueKernel(bool many) : many_(many) {}
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(errors::Internal("queue ops are asynchronous")); }
  bool IsAsync() const override { return true; }

  void ComputeAsync(OpKernelContext* ctx, std::function<void()> done) override {
    auto queue = resource_handles::Lookup<FifoQueue>(ctx, 0, "FIFOQueue");
    if (!queue) return done();
    std::vector<FifoQueue::Tuple> tuples;
    if (many_) {
      auto split = SplitMany(ctx);
      if (!split.ok()) {
        ctx->SetStatus(errors::Annotate(split.status(), StrCat("FIFOQueue '", queue->name(), "': ")));
        return done();
      }
      tuples = std::move(split).value();
    } else {
      FifoQueue::Tuple tuple;
      for (int i = 1; i < ctx->num_inputs(); ++i) tuple.push_back(ctx->input(i));
      tuples.push_back(std::move(tuple));
    }
    for (const auto& tuple : tuples) {
      Status valid = queue->Validate(tuple);
      if (!valid.ok()) {
        ctx->SetStatus(valid);
        return done();
      }
    }
    queue->EnqueueAsync(std::move(tuples), [ctx, done = std::move(done)](const Status& s) {
      ctx->SetStatus(s);
      done();
    });
  }

 private:
  bool many_;
};

class DequeueKernel : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(errors::Internal("queue ops are asynchronous")); }
  bool IsAsync() const override { return true; }

  void ComputeAsync(OpKernelContext* ctx, std::function<void()> done) override {
    auto queue = resource_handles::Lookup<FifoQueue>(ctx, 0, "FIFOQueue");
    if (!queue) return done();
    if (static_cast<int>(queue->types().size()) != ctx->num_outputs()) {
      FailInvalidArgument(ctx, "QueueDequeue expects ", ctx->num_outputs(), " components but FIFOQueue '",
                          queue->name(), "' holds ", queue->types().size());
      return done();
    }
    queue->DequeueAsync([ctx, done = std::move(done)](const Status& s, FifoQueue::Tuple tuple) {
      if (!s.ok()) {
        ctx->SetStatus(s);
      } else {
        for (size_t i = 0; i < tuple.size(); ++i) ctx->set_output(static_cast<int>(i), std::move(tuple[i]));
      }
      done();
    });
  }
};

Status HandleShape(ShapeContext& c) {
  c.set_output(0, PartialShape(std::vector<int64_t>{2}));
  return OkStatus();
}

Status DequeueShape(ShapeContext& c) {
  const std::vector<PartialShape> shapes = ShapesAttr(c.node());
  for (int i = 0; i < c.num_outputs(); ++i)
    c.set_output(i, static_cast<size_t>(i) < shapes.size() ? shapes[static_cast<size_t>(i)] : PartialShape());
  return OkStatus();
}

}  // namespace

void RegisterQueueOps(OpRegistry& registry) {
  registry.Register("FIFOQueue")
      .Output("handle: string")
      .Attr("component_types: list(type) >= 1")
      .Attr("shapes: list(shape) >= 0 = []")
      .Attr("capacity: int = -1")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .Stateful()
      .SetShapeFn(HandleShape)
      .Kernel("CPU", MakeFifoQueueKernel)
      .Summary(
          "A first-in first-out queue of tuples of tensors, kept on its device across steps (capacity -1: "
          "unbounded).")
      .Group("queue");
  auto enqueue = [&registry](const char* name, bool many, const char* summary) {
    registry.Register(name)
        .Input("handle: string")
        .Input("components: Tcomponents")
        .Attr("Tcomponents: list(type) >= 1")
        .Attr("timeout_ms: int = -1")
        .Stateful()
        .Kernel("CPU",
                [many](OpKernelConstruction&) -> StatusOr<std::unique_ptr<OpKernel>> {
                  return std::unique_ptr<OpKernel>(std::make_unique<EnqueueKernel>(many));
                })
        .Summary(summary)
        .Group("queue");
  };
  enqueue("QueueEnqueue", false, "Appends one tuple to a queue, waiting for room in a full one.");
  enqueue("QueueEnqueueMany", true,
          "Appends the slices of the components along their first dimension, one tuple each.");
  registry.Register("QueueDequeue")
      .Input("handle: string")
      .Output("components: component_types")
      .Attr("component_types: list(type) >= 1")
      .Attr("timeout_ms: int = -1")
      .Stateful()
      .SetShapeFn(DequeueShape)
      .Kernel("CPU",
              [](OpKernelConstruction&) -> StatusOr<std::unique_ptr<OpKernel>> {
                return std::unique_ptr<OpKernel>(std::make_unique<DequeueKernel>());
              })
      .Summary("Takes the oldest tuple, waiting for one; OUT_OF_RANGE once the queue is closed and empty.")
      .Group("queue");
  registry.Register("QueueClose")
      .Input("handle: string")
      .Attr("cancel_pending_enqueues: bool = false")
      .Stateful()
      .Kernel("CPU", LambdaKernel(
                         [](OpKernelContext* ctx) {
                           auto queue = resource_handles::Lookup<FifoQueue>(ctx, 0, "FIFOQueue");
                           bool cancel = false;
                           GetNodeAttr(ctx->node(), "cancel_pending_enqueues", &cancel).IgnoreError();
                           if (queue) queue->Close(cancel);
                         },
                         /*expensive=*/false))
      .Summary("Closes a queue: no more enqueues; dequeues fail once it is empty.")
      .Group("queue");
  registry.Register("QueueSize")
      .Input("handle: string")
      .Output("size: int32")
      .Stateful()
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, PartialShape::Scalar());
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(
                         [](OpKernelContext* ctx) {
                           auto queue = resource_handles::Lookup<FifoQueue>(ctx, 0, "FIFOQueue");
                           if (queue) ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(queue->size())));
                         },
                         /*expensive=*/false))
      .Summary("The number of tuples in a queue.")
      .Group("queue");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kQueueOpFamily("queue", RegisterQueueOps);

}  // namespace clab
