// TensorArrays (tf.TensorArray, what dynamic_rnn and tf.while_loop keep per-step values in):
// TensorArrayV3 makes an array of `size` tensors of one dtype for the running step and
// outputs its handle (a resource tensor [container, name]) and a flow scalar that orders
// the ops using it. TensorArrayWriteV3 / ScatterV3 fill elements, ReadV3 / GatherV3 read
// them, SizeV3 tells the size, CloseV3 drops it. TensorArrayGradV3 gives the array of the
// same size that gradients accumulate into (one per source, writes to one index add up).
//
// As in TensorFlow: an element is written once (except in gradient arrays), reading an
// element never written fails (a gradient array reads zeros of the element shape), with
// clear_after_read an element is read once, and a dynamic_size array grows on writes past
// its end.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "clab/runtime/ResourceMgr.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/ElementCopy.h"
#include "ops/ResourceHandles.h"
#include "ops/StepResources.h"

#include <atomic>

namespace clab {
namespace {

using array_internal::CopyElements;
using array_internal::FailInvalidArgument;

class TensorArray : public Resource {
 public:
  TensorArray(DataType dtype, int64_t size, bool dynamic_size, bool clear_after_read, bool aggregate,
              PartialShape element_shape)
      : dtype(dtype), dynamic_size(dynamic_size), clear_after_read(clear_after_read), aggregate(aggregate),
        element_shape(std::move(element_shape)), elements(static_cast<size_t>(size)) {}
  std::string DebugString() const override { return "TensorArray of " + DataTypeName(dtype); }

  struct Element {
    Tensor value;
    bool written = false, cleared = false;
  };
  const DataType dtype;
  const bool dynamic_size, clear_after_read, aggregate;
  PartialShape element_shape;  // refined by the first write
  std::mutex mu;
  std::vector<Element> elements;
};

constexpr const char* kKind = "TensorArray";
// Elements an array may hold: its size and the indices written to it come from the graph and
// its inputs, and every element takes memory before any tensor is written.
constexpr int64_t kMaxElements = int64_t{1} << 20;

// Writes value at index (the array's lock held). Gradient arrays add to what is there.
Status WriteElement(TensorArray& array, int64_t index, const Tensor& value) {
  if (value.dtype() != array.dtype)
    return errors::InvalidArgument("TensorArray of ", DataTypeName(array.dtype), ": cannot write a ",
                                   DataTypeName(value.dtype()), " value");
  if (index < 0) return errors::InvalidArgument("Tried to write to index ", index, " of a TensorArray");
  if (index >= static_cast<int64_t>(array.elements.size())) {
    if (!array.dynamic_size)
      return errors::InvalidArgument("Tried to write to index ", index,
                                     " but array is not resizeable and size is: ", array.elements.size());
    if (index >= kMaxElements)
      return errors::InvalidArgument("Tried to write to index ", index, " of a TensorArray, which holds at most ",
                                     kMaxElements, " elements");
    array.elements.resize(static_cast<size_t>(index) + 1);
  }
  if (array.element_shape.known_rank() && !array.element_shape.IsCompatibleWith(PartialShape(value.shape())))
    return errors::InvalidArgument("Could not write to TensorArray index ", index, ": value of shape ",
                                   value.shape().DebugString(), " is not compatible with the element shape ",
                                   array.element_shape.DebugString());
  array.element_shape = PartialShape(value.shape());
  TensorArray::Element& element = array.elements[static_cast<size_t>(index)];
  if (element.written && !array.aggregate)
    return errors::InvalidArgument("Could not write to TensorArray index ", index,
                                   " because it has already been written to");
  if (element.written && array.aggregate) {
    if (!(element.value.shape() == value.shape()))
      return errors::InvalidArgument("Could not aggregate to TensorArray index ", index, ": shapes ",
                                     element.value.shape().DebugString(), " and ", value.shape().DebugString());
    Tensor sum(value.dtype(), value.shape());
    CLAB_SWITCH_REAL_TYPES(
        value.dtype(), T,
        {
          for (int64_t i = 0; i < value.NumElements(); ++i)
            sum.data<T>()[i] = element.value.data<T>()[i] + value.data<T>()[i];
        },
        return errors::InvalidArgument("cannot aggregate TensorArray elements of ", DataTypeName(value.dtype())));
    element.value = std::move(sum);
    return OkStatus();
  }
  element.value = value.DeepCopy();
  element.written = true;
  element.cleared = false;
  return OkStatus();
}

// The element at index (the array's lock held).
StatusOr<Tensor> ReadElement(TensorArray& array, int64_t index) {
  if (index < 0 || index >= static_cast<int64_t>(array.elements.size()))
    return errors::InvalidArgument("Tried to read from index ", index, " but array size is: ", array.elements.size());
  TensorArray::Element& element = array.elements[static_cast<size_t>(index)];
  if (element.cleared)
    return errors::InvalidArgument("Could not read index ", index,
                                   " twice because it was cleared after a previous read (perhaps try setting "
                                   "clear_after_read = false?)");
  if (!element.written) {
    if (array.aggregate && array.element_shape.IsFullyDefined())
      return Tensor(array.dtype, TensorShape(array.element_shape.dims()));  // no gradient arrived: zeros
    return errors::InvalidArgument("Could not read from TensorArray index ", index,
                                   " because it has not yet been written to");
  }
  Tensor value = element.value;
  if (array.clear_after_read && !array.aggregate) {
    element.value = Tensor();
    element.cleared = true;
  }
  return value;
}

std::shared_ptr<TensorArray> LookupArray(OpKernelContext* ctx) {
  return resource_handles::Lookup<TensorArray>(ctx, 0, kKind);
}

std::vector<int64_t> Indices(const Tensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.NumElements()));
  for (int64_t i = 0; i < t.NumElements(); ++i) out[static_cast<size_t>(i)] = t.data<int32_t>()[i];
  return out;
}

// ---- kernels ---------------------------------------------------------------------------

struct ArrayAttrs {
  DataType dtype = DT_INVALID;
  PartialShape element_shape;
  bool dynamic_size = false, clear_after_read = true;
};

void CreateCompute(OpKernelContext* ctx, const ArrayAttrs& attrs) {
  static std::atomic<int64_t> next_id{0};
  const Tensor& size = ctx->input(0);
  if (size.NumElements() != 1 || size.data<int32_t>()[0] < 0)
    return FailInvalidArgument(ctx, "TensorArray size must be a non-negative scalar, got ", size.DebugString());
  if (size.data<int32_t>()[0] > kMaxElements)
    return FailInvalidArgument(ctx, "TensorArray size ", size.data<int32_t>()[0], " is more than the ", kMaxElements,
                               " elements an array may hold");
  const std::string container = step_resources::StepContainer(ctx, "tensor_array");
  const std::string name = ctx->name() + ":" + std::to_string(next_id.fetch_add(1));
  auto made = ctx->resource_mgr()->LookupOrCreate<TensorArray>(container, name, [&] {
    return std::make_shared<TensorArray>(attrs.dtype, size.data<int32_t>()[0], attrs.dynamic_size,
                                         attrs.clear_after_read, /*aggregate=*/false, attrs.element_shape);
  });
  if (!made.ok()) return ctx->SetStatus(made.status());
  ctx->set_output(0, resource_handles::MakeResourceHandle(container, name));
  ctx->set_output(1, Tensor::Scalar<float>(0));
}

void GradCompute(OpKernelContext* ctx, const std::string& source) {
  auto array = LookupArray(ctx);
  if (!array) return;
  const std::string container = ctx->input(0).data<std::string>()[0];
  const std::string name = ctx->input(0).data<std::string>()[1] + "@" + source;
  int64_t size = 0;
  PartialShape shape;
  {
    std::lock_guard<std::mutex> lock(array->mu);
    size = static_cast<int64_t>(array->elements.size());
    shape = array->element_shape;
  }
  auto made = ctx->resource_mgr()->LookupOrCreate<TensorArray>(container, name, [&] {
    return std::make_shared<TensorArray>(array->dtype, size, /*dynamic_size=*/false, /*clear_after_read=*/false,
                                         /*aggregate=*/true, shape);
  });
  if (!made.ok()) return ctx->SetStatus(made.status());
  ctx->set_output(0, resource_handles::MakeResourceHandle(container, name));
  ctx->set_output(1, Tensor::Scalar<float>(0));
}

void WriteCompute(OpKernelContext* ctx) {
  auto array = LookupArray(ctx);
  if (!array) return;
  const Tensor& index = ctx->input(1);
  std::lock_guard<std::mutex> lock(array->mu);
  Status s = WriteElement(*array, index.data<int32_t>()[0], ctx->input(2));
  if (!s.ok()) return FailInvalidArgument(ctx, s.message());
  ctx->set_output(0, ctx->input(3));
}

void ScatterCompute(OpKernelContext* ctx) {
  auto array = LookupArray(ctx);
  if (!array) return;
  const std::vector<int64_t> indices = Indices(ctx->input(1));
  const Tensor& value = ctx->input(2);
  if (value.shape().rank() < 1 || value.shape().dim(0) != static_cast<int64_t>(indices.size()))
    return FailInvalidArgument(ctx, "TensorArrayScatter: value of shape ", value.shape().DebugString(), " must have ",
                               indices.size(), " rows, one per index");
  std::vector<int64_t> element_dims(value.shape().dims().begin() + 1, value.shape().dims().end());
  const TensorShape element_shape(element_dims);
  const int64_t row = element_shape.num_elements();
  std::lock_guard<std::mutex> lock(array->mu);
  for (size_t k = 0; k < indices.size(); ++k) {
    Tensor element(value.dtype(), element_shape);
    CopyElements(value, static_cast<int64_t>(k) * row, &element, 0, row);
    Status s = WriteElement(*array, indices[k], element);
    if (!s.ok()) return FailInvalidArgument(ctx, s.message());
  }
  ctx->set_output(0, ctx->input(3));
}

void ReadCompute(OpKernelContext* ctx, DataType dtype) {
  auto array = LookupArray(ctx);
  if (!array) return;
  std::lock_guard<std::mutex> lock(array->mu);
  if (array->dtype != dtype)
    return FailInvalidArgument(ctx, "TensorArray holds ", DataTypeName(array->dtype), ", the node reads ",
                               DataTypeName(dtype));
  auto value = ReadElement(*array, ctx->input(1).data<int32_t>()[0]);
  if (!value.ok()) return FailInvalidArgument(ctx, value.status().message());
  ctx->set_output(0, *value);
}

void GatherCompute(OpKernelContext* ctx, DataType dtype, const PartialShape& attr_shape) {
  auto array = LookupArray(ctx);
  if (!array) return;
  const std::vector<int64_t> indices = Indices(ctx->input(1));
  std::lock_guard<std::mutex> lock(array->mu);
  if (array->dtype != dtype)
    return FailInvalidArgument(ctx, "TensorArray holds ", DataTypeName(array->dtype), ", the node reads ",
                               DataTypeName(dtype));
  std::vector<Tensor> values;
  for (int64_t index : indices) {
    auto value = ReadElement(*array, index);
    if (!value.ok()) return FailInvalidArgument(ctx, value.status().message());
    values.push_back(*value);
  }
  std::vector<int64_t> element_dims;
  if (!values.empty()) {
    element_dims = values[0].shape().dims();
  } else if (array->element_shape.IsFullyDefined()) {
    element_dims = array->element_shape.dims();
  } else if (attr_shape.IsFullyDefined()) {
    element_dims = attr_shape.dims();
  } else {
    return FailInvalidArgument(ctx, "TensorArray has size zero, but element shape ", array->element_shape.DebugString(),
                               " is not fully defined");
  }
  std::vector<int64_t> dims = {static_cast<int64_t>(values.size())};
  dims.insert(dims.end(), element_dims.begin(), element_dims.end());
  Tensor* out = ctx->allocate_output(0, dtype, TensorShape(dims));
  if (out == nullptr) return;
  const int64_t row = TensorShape(element_dims).num_elements();
  for (size_t k = 0; k < values.size(); ++k) {
    if (values[k].shape().dims() != element_dims)
      return FailInvalidArgument(ctx, "TensorArray elements differ in shape: ", values[k].shape().DebugString(),
                                 " and ", TensorShape(element_dims).DebugString());
    CopyElements(values[k], 0, out, static_cast<int64_t>(k) * row, row);
  }
}

void SizeCompute(OpKernelContext* ctx) {
  auto array = LookupArray(ctx);
  if (!array) return;
  std::lock_guard<std::mutex> lock(array->mu);
  ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(array->elements.size())));
}

void CloseCompute(OpKernelContext* ctx) {
  auto array = LookupArray(ctx);
  if (!array) return;
  std::lock_guard<std::mutex> lock(array->mu);
  array->elements.clear();
}

template <typename Fn>
KernelFactory Simple(Fn fn) {
  return [fn](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> { return LambdaKernel(fn, false)(c); };
}

KernelFactory WithDtype(void (*fn)(OpKernelContext*, DataType)) {
  return [fn](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
    DataType dtype = DT_INVALID;
    CLAB_RETURN_IF_ERROR(c.GetAttr("dtype", &dtype));
    return LambdaKernel([fn, dtype](OpKernelContext* ctx) { fn(ctx, dtype); }, false)(c);
  };
}

Status Outputs(ShapeContext& c, std::vector<PartialShape> shapes) {
  for (size_t i = 0; i < shapes.size(); ++i) c.set_output(static_cast<int>(i), shapes[i]);
  return OkStatus();
}

Status ElementShapeOut(ShapeContext& c, bool gathered) {
  PartialShape shape;
  if (c.node().attr().count("element_shape")) c.GetAttr("element_shape", &shape).IgnoreError();
  if (gathered && shape.known_rank()) {
    std::vector<int64_t> dims = {c.input_shape(1).known_rank() && c.input_shape(1).rank() == 1 ? c.input_shape(1).dim(0)
                                                                                               : -1};
    dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
    shape = PartialShape(dims);
  }
  c.set_output(0, gathered ? shape : PartialShape::Unknown());
  return OkStatus();
}

}  // namespace

void RegisterTensorArrayOps(OpRegistry& registry) {
  registry.Register("TensorArrayV3")
      .Input("size: int32")
      .Output("handle: resource")
      .Output("flow: float")
      .Attr("dtype: type")
      .Attr("element_shape: shape = { unknown_rank: true }")
      .Attr("dynamic_size: bool = false")
      .Attr("clear_after_read: bool = true")
      .Attr("identical_element_shapes: bool = false")
      .Attr("tensor_array_name: string = ''")
      .Stateful()
      .SetShapeFn([](ShapeContext& c) {
        return Outputs(c, {PartialShape({2}), PartialShape::Scalar()});
      })
      .Kernel("CPU",
              [](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
                ArrayAttrs attrs;
                CLAB_RETURN_IF_ERROR(c.GetAttr("dtype", &attrs.dtype));
                CLAB_RETURN_IF_ERROR(c.GetAttr("element_shape", &attrs.element_shape));
                CLAB_RETURN_IF_ERROR(c.GetAttr("dynamic_size", &attrs.dynamic_size));
                CLAB_RETURN_IF_ERROR(c.GetAttr("clear_after_read", &attrs.clear_after_read));
                return LambdaKernel([attrs](OpKernelContext* ctx) { CreateCompute(ctx, attrs); }, false)(c);
              })
      .Summary("An array of tensors for this step (tf.TensorArray): its handle and flow.")
      .Group("tensor array");
  registry.Register("TensorArrayGradV3")
      .Input("handle: resource")
      .Input("flow_in: float")
      .Output("grad_handle: resource")
      .Output("flow_out: float")
      .Attr("source: string")
      .Stateful()
      .SetShapeFn([](ShapeContext& c) {
        return Outputs(c, {PartialShape({2}), PartialShape::Scalar()});
      })
      .Kernel("CPU",
              [](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
                std::string source;
                CLAB_RETURN_IF_ERROR(c.GetAttr("source", &source));
                return LambdaKernel([source](OpKernelContext* ctx) { GradCompute(ctx, source); }, false)(c);
              })
      .Summary("The TensorArray the gradients of a TensorArray's elements add up in (one per source).")
      .Group("tensor array");
  registry.Register("TensorArrayWriteV3")
      .Input("handle: resource")
      .Input("index: int32")
      .Input("value: T")
      .Input("flow_in: float")
      .Output("flow_out: float")
      .Attr("T: type")
      .Stateful()
      .SetShapeFn([](ShapeContext& c) { return Outputs(c, {PartialShape::Scalar()}); })
      .Kernel("CPU", Simple(WriteCompute))
      .Summary("Writes value at index of a TensorArray.")
      .Group("tensor array");
  registry.Register("TensorArrayScatterV3")
      .Input("handle: resource")
      .Input("indices: int32")
      .Input("value: T")
      .Input("flow_in: float")
      .Output("flow_out: float")
      .Attr("T: type")
      .Stateful()
      .SetShapeFn([](ShapeContext& c) { return Outputs(c, {PartialShape::Scalar()}); })
      .Kernel("CPU", Simple(ScatterCompute))
      .Summary("Writes the rows of value at the indices of a TensorArray (tf.TensorArray.unstack).")
      .Group("tensor array");
  registry.Register("TensorArrayReadV3")
      .Input("handle: resource")
      .Input("index: int32")
      .Input("flow_in: float")
      .Output("value: dtype")
      .Attr("dtype: type")
      .Stateful()
      .SetShapeFn([](ShapeContext& c) { return ElementShapeOut(c, false); })
      .Kernel("CPU", WithDtype(ReadCompute))
      .Summary("The element at index of a TensorArray.")
      .Group("tensor array");
  registry.Register("TensorArrayGatherV3")
      .Input("handle: resource")
      .Input("indices: int32")
      .Input("flow_in: float")
      .Output("value: dtype")
      .Attr("dtype: type")
      .Attr("element_shape: shape = { unknown_rank: true }")
      .Stateful()
      .SetShapeFn([](ShapeContext& c) { return ElementShapeOut(c, true); })
      .Kernel("CPU",
              [](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
                DataType dtype = DT_INVALID;
                PartialShape shape;
                CLAB_RETURN_IF_ERROR(c.GetAttr("dtype", &dtype));
                CLAB_RETURN_IF_ERROR(c.GetAttr("element_shape", &shape));
                return LambdaKernel([dtype, shape](OpKernelContext* ctx) { GatherCompute(ctx, dtype, shape); })(c);
              })
      .Summary("The elements at the indices of a TensorArray, stacked (tf.TensorArray.stack).")
      .Group("tensor array");
  registry.Register("TensorArraySizeV3")
      .Input("handle: resource")
      .Input("flow_in: float")
      .Output("size: int32")
      .Stateful()
      .SetShapeFn([](ShapeContext& c) { return Outputs(c, {PartialShape::Scalar()}); })
      .Kernel("CPU", Simple(SizeCompute))
      .Summary("The number of elements of a TensorArray.")
      .Group("tensor array");
  registry.Register("TensorArrayCloseV3")
      .Input("handle: resource")
      .Stateful()
      .SetShapeFn([](ShapeContext&) { return OkStatus(); })
      .Kernel("CPU", Simple(CloseCompute))
      .Summary("Drops a TensorArray's elements.")
      .Group("tensor array");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kTensorArrayOpFamily("tensor array", RegisterTensorArrayOps);

}  // namespace clab
