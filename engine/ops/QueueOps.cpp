// Queues, as TensorFlow 1.x writes them: FIFOQueue(V2) and RandomShuffleQueueV2 make (once
// per device) the queue their handle names; QueueEnqueue(Many)(V2) wait for room and
// QueueDequeue(V2), QueueDequeueManyV2 and QueueDequeueUpToV2 for elements without holding
// a thread; QueueClose(V2), QueueSize(V2), QueueIsClosedV2. The V1 ops pass the handle as a
// string vector [container, name], the V2 ops as a resource tensor of the same two strings
// (resource_handles).
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/ResourceHandles.h"
#include "ops/TensorQueue.h"

#include <cstring>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;

constexpr const char* kQueue = "queue";

std::vector<PartialShape> ShapesAttr(const tensorflow::NodeDef& node) {
  std::vector<PartialShape> shapes;
  auto found = node.attr().find("shapes");
  if (found == node.attr().end()) return shapes;
  for (const auto& proto : found->second.list().shape()) shapes.push_back(PartialShape::FromProto(proto));
  return shapes;
}

class QueueKernel : public OpKernel {
 public:
  QueueKernel(std::string container, TensorQueue::Options options, bool resource_handle)
      : container_(std::move(container)), options_(std::move(options)), resource_handle_(resource_handle) {}

  void Compute(OpKernelContext* ctx) override {
    auto queue = ctx->resource_mgr()->LookupOrCreate<TensorQueue>(
        container_, options_.name, [&] { return std::make_shared<TensorQueue>(options_); });
    if (!queue.ok()) return ctx->SetStatus(queue.status());
    if ((*queue)->types() != options_.types || (*queue)->kind() != options_.kind)
      return FailInvalidArgument(ctx, options_.kind, " '", options_.name, "' already exists as ",
                                 (*queue)->DebugString(), " with other component types");
    ctx->set_output(0, resource_handle_ ? resource_handles::MakeResourceHandle(container_, options_.name)
                                        : resource_handles::MakeHandle(container_, options_.name));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string container_;
  TensorQueue::Options options_;
  bool resource_handle_;
};

KernelFactory QueueFactory(bool shuffle, bool resource_handle) {
  return [shuffle, resource_handle](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
    std::string container;
    TensorQueue::Options options;
    options.kind = shuffle ? "RandomShuffleQueue" : "FIFOQueue";
    options.shuffle = shuffle;
    CLAB_RETURN_IF_ERROR(resource_handles::ResourceName(c, &container, &options.name));
    CLAB_RETURN_IF_ERROR(c.GetAttr("component_types", &options.types));
    CLAB_RETURN_IF_ERROR(c.GetAttr("capacity", &options.capacity));
    options.shapes = ShapesAttr(c.node());
    if (!options.shapes.empty() && options.shapes.size() != options.types.size())
      return errors::InvalidArgument(options.kind, " '", c.name(), "': ", options.shapes.size(), " shapes for ",
                                     options.types.size(), " component types");
    if (shuffle) {
      CLAB_RETURN_IF_ERROR(c.GetAttr("min_after_dequeue", &options.min_after_dequeue));
      CLAB_RETURN_IF_ERROR(c.GetAttr("seed", &options.seed));
      CLAB_RETURN_IF_ERROR(c.GetAttr("seed2", &options.seed2));
      if (options.capacity >= 0 && options.min_after_dequeue >= options.capacity)
        return errors::InvalidArgument("RandomShuffleQueue '", c.name(), "': min_after_dequeue (",
                                       options.min_after_dequeue, ") must be less than capacity (", options.capacity,
                                       ")");
    }
    return std::unique_ptr<OpKernel>(std::make_unique<QueueKernel>(container, std::move(options), resource_handle));
  };
}

std::shared_ptr<TensorQueue> LookupQueue(OpKernelContext* ctx) {
  return resource_handles::Lookup<TensorQueue>(ctx, 0, kQueue);
}

// Splits each component along its first dimension into `count` tuples.
StatusOr<std::vector<TensorQueue::Tuple>> SplitMany(OpKernelContext* ctx) {
  const int components = ctx->num_inputs() - 1;
  if (components < 1) return errors::InvalidArgument("QueueEnqueueMany needs at least one component");
  const Tensor& first = ctx->input(1);
  if (first.shape().rank() < 1)
    return errors::InvalidArgument("QueueEnqueueMany components must have a first dimension, got a scalar");
  const int64_t count = first.shape().dim(0);
  std::vector<TensorQueue::Tuple> tuples(static_cast<size_t>(count));
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

// Stacks component `c` of the tuples along a new first dimension. With no tuples the
// element shape comes from the queue's shapes.
StatusOr<Tensor> StackComponent(const TensorQueue& queue, const std::vector<TensorQueue::Tuple>& tuples, size_t c) {
  std::vector<int64_t> element_dims;
  if (!tuples.empty()) {
    element_dims = tuples.front()[c].shape().dims();
  } else if (c < queue.shapes().size() && queue.shapes()[c].IsFullyDefined()) {
    element_dims = queue.shapes()[c].dims();
  }
  std::vector<int64_t> dims = {static_cast<int64_t>(tuples.size())};
  dims.insert(dims.end(), element_dims.begin(), element_dims.end());
  Tensor out(queue.types()[c], TensorShape(dims));
  for (size_t k = 0; k < tuples.size(); ++k) {
    const Tensor& element = tuples[k][c];
    if (element.shape().dims() != element_dims)
      return errors::InvalidArgument(queue.kind(), " '", queue.name(), "': a dequeue of several elements needs ",
                                     "component ", c, " to have one shape, got ",
                                     tuples.front()[c].shape().DebugString(), " and ", element.shape().DebugString());
    if (element.dtype() == DT_STRING) {
      const int64_t n = element.NumElements();
      std::copy(element.data<std::string>(), element.data<std::string>() + n,
                out.data<std::string>() + static_cast<int64_t>(k) * n);
    } else {
      const size_t bytes = element.TotalBytes();
      std::memcpy(static_cast<char*>(out.raw_data()) + k * bytes, element.raw_data(), bytes);
    }
  }
  return out;
}

class EnqueueKernel : public OpKernel {
 public:
  explicit EnqueueKernel(bool many) : many_(many) {}
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(errors::Internal("queue ops are asynchronous")); }
  bool IsAsync() const override { return true; }

  void ComputeAsync(OpKernelContext* ctx, std::function<void()> done) override {
    auto queue = LookupQueue(ctx);
    if (!queue) return done();
    std::vector<TensorQueue::Tuple> tuples;
    if (many_) {
      auto split = SplitMany(ctx);
      if (!split.ok()) {
        ctx->SetStatus(errors::Annotate(split.status(), StrCat(queue->kind(), " '", queue->name(), "': ")));
        return done();
      }
      tuples = std::move(split).value();
    } else {
      TensorQueue::Tuple tuple;
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
    queue->EnqueueAsync(
        std::move(tuples),
        [ctx, done = std::move(done)](const Status& s) {
          ctx->SetStatus(s);
          done();
        },
        ctx->step().rendezvous);
  }

 private:
  bool many_;
};

// QueueDequeue(V2) (one tuple, its components as the outputs), QueueDequeueManyV2 and
// QueueDequeueUpToV2 (n tuples, each component stacked along a new first dimension).
class DequeueKernel : public OpKernel {
 public:
  enum class Mode { kOne, kMany, kUpTo };
  explicit DequeueKernel(Mode mode) : mode_(mode) {}
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(errors::Internal("queue ops are asynchronous")); }
  bool IsAsync() const override { return true; }

  void ComputeAsync(OpKernelContext* ctx, std::function<void()> done) override {
    auto queue = LookupQueue(ctx);
    if (!queue) return done();
    if (static_cast<int>(queue->types().size()) != ctx->num_outputs()) {
      FailInvalidArgument(ctx, "the dequeue expects ", ctx->num_outputs(), " components but ", queue->kind(), " '",
                          queue->name(), "' holds ", queue->types().size());
      return done();
    }
    int64_t count = 1;
    if (mode_ != Mode::kOne) {
      const Tensor& n = ctx->input(1);
      if (n.NumElements() != 1 || n.dtype() != DT_INT32) {
        FailInvalidArgument(ctx, "n must be an int32 scalar, got ", DataTypeName(n.dtype()), " ",
                            n.shape().DebugString());
        return done();
      }
      count = n.data<int32_t>()[0];
      if (count < 0) {
        FailInvalidArgument(ctx, "n must be >= 0, got ", count);
        return done();
      }
    }
    queue->DequeueAsync(
        count, mode_ == Mode::kUpTo,
        [this, ctx, queue, done = std::move(done)](const Status& s, std::vector<TensorQueue::Tuple> got) {
          if (!s.ok()) {
            ctx->SetStatus(s);
          } else if (mode_ == Mode::kOne) {
            for (size_t i = 0; i < got.front().size(); ++i)
              ctx->set_output(static_cast<int>(i), std::move(got.front()[i]));
          } else {
            for (size_t c = 0; c < queue->types().size(); ++c) {
              auto stacked = StackComponent(*queue, got, c);
              if (!stacked.ok()) {
                ctx->SetStatus(stacked.status());
                break;
              }
              ctx->set_output(static_cast<int>(c), std::move(stacked).value());
            }
          }
          done();
        },
        ctx->step().rendezvous);
  }

 private:
  Mode mode_;
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

// [n] + the component's shape; n unknown for an up-to dequeue or an n that is no constant.
Status DequeueManyShape(ShapeContext& c, bool up_to) {
  const std::vector<PartialShape> shapes = ShapesAttr(c.node());
  int64_t n = -1;
  if (!up_to)
    if (const Tensor* value = c.input_constant(1); value != nullptr && value->NumElements() == 1)
      n = value->data<int32_t>()[0];
  for (int i = 0; i < c.num_outputs(); ++i) {
    const size_t at = static_cast<size_t>(i);
    if (at >= shapes.size() || !shapes[at].known_rank()) {
      c.set_output(i, PartialShape::Unknown());
      continue;
    }
    std::vector<int64_t> dims = {n};
    dims.insert(dims.end(), shapes[at].dims().begin(), shapes[at].dims().end());
    c.set_output(i, PartialShape(dims));
  }
  return OkStatus();
}

template <typename KernelType, typename... Args>
KernelFactory Make(Args... args) {
  return [args...](OpKernelConstruction&) -> StatusOr<std::unique_ptr<OpKernel>> {
    return std::unique_ptr<OpKernel>(std::make_unique<KernelType>(args...));
  };
}

void CloseCompute(OpKernelContext* ctx) {
  auto queue = LookupQueue(ctx);
  bool cancel = false;
  GetNodeAttr(ctx->node(), "cancel_pending_enqueues", &cancel).IgnoreError();
  if (queue) queue->Close(cancel);
}

void SizeCompute(OpKernelContext* ctx) {
  auto queue = LookupQueue(ctx);
  if (queue) ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(queue->size())));
}

Status ScalarShape(ShapeContext& c) {
  c.set_output(0, PartialShape::Scalar());
  return OkStatus();
}

void RegisterQueueMakers(OpRegistry& registry) {
  for (const bool v2 : {false, true}) {
    registry.Register(v2 ? "FIFOQueueV2" : "FIFOQueue")
        .Output(v2 ? "handle: resource" : "handle: string")
        .Attr("component_types: list(type) >= 1")
        .Attr("shapes: list(shape) >= 0 = []")
        .Attr("capacity: int = -1")
        .Attr("container: string = ''")
        .Attr("shared_name: string = ''")
        .Stateful()
        .SetShapeFn(HandleShape)
        .Kernel("CPU", QueueFactory(/*shuffle=*/false, v2))
        .Summary(
            "A first-in first-out queue of tuples of tensors, kept on its device across steps (capacity -1: "
            "unbounded).")
        .Group("queue");
  }
  registry.Register("RandomShuffleQueueV2")
      .Output("handle: resource")
      .Attr("component_types: list(type) >= 1")
      .Attr("shapes: list(shape) >= 0 = []")
      .Attr("capacity: int = -1")
      .Attr("min_after_dequeue: int = 0")
      .Attr("seed: int = 0")
      .Attr("seed2: int = 0")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .Stateful()
      .SetShapeFn(HandleShape)
      .Kernel("CPU", QueueFactory(/*shuffle=*/true, true))
      .Summary(
          "A queue that hands out its tuples in random order (fixed by seed and seed2 when either is set), keeping "
          "min_after_dequeue of them until it is closed.")
      .Group("queue");
}

}  // namespace

void RegisterQueueOps(OpRegistry& registry) {
  RegisterQueueMakers(registry);
  for (const bool v2 : {false, true}) {
    const std::string suffix = v2 ? "V2" : "";
    const char* handle = v2 ? "handle: resource" : "handle: string";
    for (const bool many : {false, true}) {
      registry.Register(std::string(many ? "QueueEnqueueMany" : "QueueEnqueue") + suffix)
          .Input(handle)
          .Input("components: Tcomponents")
          .Attr("Tcomponents: list(type) >= 1")
          .Attr("timeout_ms: int = -1")
          .Stateful()
          .Kernel("CPU", Make<EnqueueKernel>(many))
          .Summary(many ? "Appends the slices of the components along their first dimension, one tuple each."
                        : "Appends one tuple to a queue, waiting for room in a full one.")
          .Group("queue");
    }
    registry.Register("QueueDequeue" + suffix)
        .Input(handle)
        .Output("components: component_types")
        .Attr("component_types: list(type) >= 1")
        .Attr("timeout_ms: int = -1")
        .Stateful()
        .SetShapeFn(DequeueShape)
        .Kernel("CPU", Make<DequeueKernel>(DequeueKernel::Mode::kOne))
        .Summary("Takes one tuple, waiting for one; OUT_OF_RANGE once the queue is closed and empty.")
        .Group("queue");
    registry.Register("QueueClose" + suffix)
        .Input(handle)
        .Attr("cancel_pending_enqueues: bool = false")
        .Stateful()
        .Kernel("CPU", LambdaKernel(CloseCompute, /*expensive=*/false))
        .Summary("Closes a queue: no more enqueues; dequeues fail once too few elements remain.")
        .Group("queue");
    registry.Register("QueueSize" + suffix)
        .Input(handle)
        .Output("size: int32")
        .Stateful()
        .SetShapeFn(ScalarShape)
        .Kernel("CPU", LambdaKernel(SizeCompute, /*expensive=*/false))
        .Summary("The number of tuples in a queue.")
        .Group("queue");
  }
  for (const bool up_to : {false, true}) {
    registry.Register(up_to ? "QueueDequeueUpToV2" : "QueueDequeueManyV2")
        .Input("handle: resource")
        .Input("n: int32")
        .Output("components: component_types")
        .Attr("component_types: list(type) >= 1")
        .Attr("timeout_ms: int = -1")
        .Stateful()
        .SetShapeFn([up_to](ShapeContext& c) { return DequeueManyShape(c, up_to); })
        .Kernel("CPU", Make<DequeueKernel>(up_to ? DequeueKernel::Mode::kUpTo : DequeueKernel::Mode::kMany))
        .Summary(up_to ? "Takes n tuples stacked along a new first dimension, fewer once the queue is closed."
                       : "Takes n tuples stacked along a new first dimension, waiting for them; OUT_OF_RANGE once "
                         "the queue is closed with fewer.")
        .Group("queue");
  }
  registry.Register("QueueIsClosedV2")
      .Input("handle: resource")
      .Output("is_closed: bool")
      .SetShapeFn(ScalarShape)
      .Kernel("CPU", LambdaKernel(
                         [](OpKernelContext* ctx) {
                           if (auto queue = LookupQueue(ctx)) ctx->set_output(0, Tensor::Scalar<bool>(queue->closed()));
                         },
                         /*expensive=*/false))
      .Summary("Whether a queue is closed.")
      .Group("queue");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kQueueOpFamily("queue", RegisterQueueOps);

}  // namespace clab
