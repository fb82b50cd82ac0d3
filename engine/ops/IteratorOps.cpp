// Iterators over tf.data datasets. IteratorV2 (Iterator, as TensorFlow before 1.12 wrote
// it) makes an iterator resource on its device under (container, shared_name or the node's
// name) and outputs its handle; MakeIterator starts it at the first element of a dataset
// (again at each run: an initializable iterator's initializer); IteratorGetNext (and
// IteratorGetNextSync, the same here) outputs the next element and fails OUT_OF_RANGE "End
// of sequence" at the end, as TensorFlow does, so that a training loop stops there. OneShotIterator builds its dataset
// once, by calling the library function dataset_factory on its first run. IteratorToStringHandle and
// IteratorFromStringHandle(V2) turn a handle into a string and back (feedable iterators).
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/FunctionLibrary.h"
#include "clab/runtime/OpKernel.h"
#include "clab/runtime/ResourceMgr.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/ResourceHandles.h"
#include "ops/data/Dataset.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>

#include <mutex>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;
using array_internal::NodeSuffix;
using data::DatasetPtr;
using data::Element;

class IteratorResource : public Resource {
 public:
  IteratorResource(std::string name, data::Signature signature)
      : name(std::move(name)), signature(std::move(signature)) {}
  std::string DebugString() const override { return "Iterator " + name; }

  const std::string name;
  const data::Signature signature;
  std::mutex mu;
  std::unique_ptr<data::DatasetIterator> iterator;  // null until initialised
  bool made_by_factory = false;                     // OneShotIterator: the factory ran
};

// Checks that a dataset's elements fit the iterator's declared types and shapes.
Status CheckFits(const IteratorResource& iterator, const data::Dataset& dataset) {
  const data::Signature& s = iterator.signature;
  if (dataset.output_dtypes() != s.dtypes) {
    std::vector<std::string> have, want;
    for (DataType t : dataset.output_dtypes()) have.push_back(DataTypeName(t));
    for (DataType t : s.dtypes) want.push_back(DataTypeName(t));
    return errors::InvalidArgument("The dataset's elements are (", absl::StrJoin(have, ", "), "), but iterator '",
                                   iterator.name, "' was declared for (", absl::StrJoin(want, ", "), ")");
  }
  return OkStatus();
}

std::shared_ptr<IteratorResource> LookupIterator(OpKernelContext* ctx, int i) {
  return resource_handles::Lookup<IteratorResource>(ctx, i, "iterator");
}

StatusOr<std::unique_ptr<OpKernel>> MakeIteratorHandleKernel(OpKernelConstruction& c) {
  std::string container, name;
  CLAB_RETURN_IF_ERROR(resource_handles::ResourceName(c, &container, &name));
  CLAB_ASSIGN_OR_RETURN(data::Signature signature, data::ReadSignature(c.node()));
  return LambdaKernel(
      [container, name, signature](OpKernelContext* ctx) {
        auto made = ctx->resource_mgr()->LookupOrCreate<IteratorResource>(
            container, name, [&] { return std::make_shared<IteratorResource>(name, signature); });
        if (!made.ok()) return ctx->SetStatus(made.status());
        if ((*made)->signature.dtypes != signature.dtypes)
          return FailInvalidArgument(ctx, "iterator '", name, "' already exists with other output_types");
        ctx->set_output(0, resource_handles::MakeResourceHandle(container, name));
      },
      false)(c);
}

void MakeIteratorCompute(OpKernelContext* ctx) {
  DatasetPtr dataset = data::DatasetInput(ctx, 0);
  if (!dataset) return;
  auto iterator = LookupIterator(ctx, 1);
  if (!iterator) return;
  Status fits = CheckFits(*iterator, *dataset);
  if (!fits.ok()) return FailInvalidArgument(ctx, fits.message());
  auto fresh = dataset->MakeIterator();
  std::lock_guard<std::mutex> lock(iterator->mu);
  iterator->iterator = std::move(fresh);
}

StatusOr<std::unique_ptr<OpKernel>> MakeGetNextKernel(OpKernelConstruction& c) {
  CLAB_ASSIGN_OR_RETURN(data::Signature signature, data::ReadSignature(c.node()));
  return LambdaKernel([signature](OpKernelContext* ctx) {
    auto iterator = LookupIterator(ctx, 0);
    if (!iterator) return;
    Element element;
    bool end = false;
    {
      std::lock_guard<std::mutex> lock(iterator->mu);
      if (!iterator->iterator)
        return ctx->SetStatus(errors::FailedPrecondition(
            "Iterator '", iterator->name,
            "' has not been initialized: run its initializer (the MakeIterator op) before getting elements",
            NodeSuffix(ctx->name())));
      Status next = iterator->iterator->GetNext(&element, &end);
      if (!next.ok()) return ctx->SetStatus(next);
    }
    if (end) return ctx->SetStatus(errors::OutOfRange("End of sequence", NodeSuffix(ctx->name())));
    Status fits = data::CheckElement(signature, element, ctx->name(), "the next element");
    if (!fits.ok()) return ctx->SetStatus(fits);
    for (size_t i = 0; i < element.size(); ++i) ctx->set_output(static_cast<int>(i), std::move(element[i]));
  })(c);
}

StatusOr<std::unique_ptr<OpKernel>> MakeOneShotKernel(OpKernelConstruction& c) {
  std::string container, name;
  CLAB_RETURN_IF_ERROR(resource_handles::ResourceName(c, &container, &name));
  CLAB_ASSIGN_OR_RETURN(data::Signature signature, data::ReadSignature(c.node()));
  auto attr = c.node().attr().find("dataset_factory");
  if (attr == c.node().attr().end() || attr->second.value_case() != tensorflow::AttrValue::kFunc)
    return errors::InvalidArgument("Node '", c.name(), "' (OneShotIterator) has no function in attr 'dataset_factory'");
  if (c.function_library() == nullptr)
    return errors::InvalidArgument("Node '", c.name(), "' (OneShotIterator) calls function '",
                                   attr->second.func().name(), "', but it runs without its graph's function library");
  CLAB_ASSIGN_OR_RETURN(
      std::shared_ptr<FunctionInstance> factory,
      c.function_library()->Instantiate(c.name(), "dataset_factory", attr->second.func(), c.device()));
  if (!factory->arg_types().empty() || factory->ret_types() != std::vector<DataType>{tensorflow::DT_VARIANT})
    return errors::InvalidArgument("Node '", c.name(), "' (OneShotIterator): dataset_factory '", factory->name(),
                                   "' must take no arguments and return one dataset (variant); it takes ",
                                   factory->arg_types().size(), " and returns ", factory->ret_types().size());
  return LambdaKernel([container, name, signature, factory](OpKernelContext* ctx) {
    auto made = ctx->resource_mgr()->LookupOrCreate<IteratorResource>(
        container, name, [&] { return std::make_shared<IteratorResource>(name, signature); });
    if (!made.ok()) return ctx->SetStatus(made.status());
    IteratorResource& iterator = **made;
    std::lock_guard<std::mutex> lock(iterator.mu);
    if (!iterator.made_by_factory) {
      auto result = factory->Call({});
      if (!result.ok()) return ctx->SetStatus(result.status());
      Tensor dataset_tensor = (*result)[0];
      auto dataset = dataset_tensor.NumElements() == 1
                         ? std::dynamic_pointer_cast<const data::Dataset>(dataset_tensor.scalar<Variant>())
                         : nullptr;
      if (!dataset) return FailInvalidArgument(ctx, "dataset_factory '", factory->name(), "' returned no dataset");
      Status fits = CheckFits(iterator, *dataset);
      if (!fits.ok()) return FailInvalidArgument(ctx, fits.message());
      iterator.iterator = dataset->MakeIterator();
      iterator.made_by_factory = true;
    }
    ctx->set_output(0, resource_handles::MakeResourceHandle(container, name));
  })(c);
}

void ToStringHandleCompute(OpKernelContext* ctx) {
  const Tensor& handle = ctx->input(0);
  if (handle.NumElements() != 2 || handle.dtype() != tensorflow::DT_RESOURCE)
    return FailInvalidArgument(ctx, "input 0 must be an iterator handle");
  ctx->set_output(
      0, Tensor::Scalar<std::string>(absl::StrCat(handle.data<std::string>()[0], "\n", handle.data<std::string>()[1])));
}

void FromStringHandleCompute(OpKernelContext* ctx) {
  const Tensor& text = ctx->input(0);
  if (text.dtype() != DT_STRING || text.NumElements() != 1)
    return FailInvalidArgument(ctx, "string_handle must be a string scalar");
  const std::vector<std::string> parts = absl::StrSplit(text.scalar<std::string>(), absl::MaxSplits('\n', 1));
  if (parts.size() != 2)
    return FailInvalidArgument(ctx, "'", text.scalar<std::string>(),
                               "' is not an iterator's string handle (one made by IteratorToStringHandle)");
  ctx->set_output(0, resource_handles::MakeResourceHandle(parts[0], parts[1]));
}

Status HandleShape(ShapeContext& c) {
  c.set_output(0, PartialShape({2}));
  return OkStatus();
}

Status GetNextShape(ShapeContext& c) {
  auto signature = data::ReadSignature(c.node());
  if (!signature.ok()) return c.MakeError(std::string(signature.status().message()));
  for (int i = 0; i < c.num_outputs() && i < static_cast<int>(signature->shapes.size()); ++i)
    c.set_output(i, signature->shapes[static_cast<size_t>(i)]);
  return OkStatus();
}

}  // namespace

void RegisterIteratorOps(OpRegistry& registry) {
  for (const char* op : {"IteratorV2", "Iterator"}) {
    registry.Register(op)
        .Output("handle: resource")
        .Attr("shared_name: string")
        .Attr("container: string")
        .Attr("output_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .SetShapeFn(HandleShape)
        .Kernel("CPU", MakeIteratorHandleKernel)
        .Stateful()
        .Summary("A handle to an iterator of the device, to be started by MakeIterator")
        .Group("data");
  }
  registry.Register("MakeIterator")
      .Input("dataset: variant")
      .Input("iterator: resource")
      .Kernel("CPU", LambdaKernel(MakeIteratorCompute, false))
      .Stateful()
      .Summary("Starts the iterator at the first element of the dataset")
      .Group("data");
  for (const char* op : {"IteratorGetNext", "IteratorGetNextSync"}) {
    registry.Register(op)
        .Input("iterator: resource")
        .Output("components: output_types")
        .Attr("output_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .SetShapeFn(GetNextShape)
        .Kernel("CPU", MakeGetNextKernel)
        .Stateful()
        .Summary("The iterator's next element; OUT_OF_RANGE \"End of sequence\" after the last")
        .Group("data");
  }
  registry.Register("OneShotIterator")
      .Output("handle: resource")
      .Attr("dataset_factory: func")
      .Attr("output_types: list(type) >= 1")
      .Attr("output_shapes: list(shape) >= 1")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .SetShapeFn(HandleShape)
      .Kernel("CPU", MakeOneShotKernel)
      .Stateful()
      .Summary("A handle to an iterator over the dataset that dataset_factory builds on the first run")
      .Group("data");
  registry.Register("IteratorToStringHandle")
      .Input("resource_handle: resource")
      .Output("string_handle: string")
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, PartialShape::Scalar());
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(ToStringHandleCompute, false))
      .Summary("The iterator's handle as a string, to feed to IteratorFromStringHandle")
      .Group("data");
  for (const bool v2 : {true, false}) {
    registry.Register(v2 ? "IteratorFromStringHandleV2" : "IteratorFromStringHandle")
        .Input("string_handle: string")
        .Output("resource_handle: resource")
        .Attr("output_types: list(type) >= 0 = []")
        .Attr("output_shapes: list(shape) >= 0 = []")
        .SetShapeFn(HandleShape)
        .Kernel("CPU", LambdaKernel(FromStringHandleCompute, false))
        .Stateful()
        .Summary("The iterator handle a string from IteratorToStringHandle names")
        .Group("data");
  }
}

const OpFamily kIteratorOpFamily("iterator", RegisterIteratorOps);

}  // namespace clab
