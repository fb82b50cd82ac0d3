// The tf.data ops that start a pipeline from tensors in the graph: TensorDataset (one
// element: its inputs) and TensorSliceDataset (one element per row of its inputs, which
// must all have the same first dimension). Each run of the node makes a new dataset.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/data/Dataset.h"

namespace clab {
namespace {

using array_internal::FailInvalidArgument;
using data::Dataset;
using data::DatasetIterator;
using data::Element;

class TensorsDataset : public Dataset {
 public:
  // slice: element i is row i of every component; otherwise one element, the components.
  TensorsDataset(std::string type_name, data::Signature signature, Element components, bool slice)
      : Dataset(std::move(type_name), std::move(signature.dtypes), std::move(signature.shapes)),
        components_(std::move(components)), slice_(slice), size_(slice_ ? components_[0].shape().dims()[0] : 1) {}

  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<TensorsDataset>());
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const TensorsDataset> dataset) : dataset_(std::move(dataset)) {}
    Status Next(Element* element, bool* end) override {
      if (next_ >= dataset_->size_) {
        *end = true;
        return OkStatus();
      }
      *end = false;
      element->clear();
      for (const Tensor& t : dataset_->components_) element->push_back(dataset_->slice_ ? data::SliceRow(t, next_) : t);
      ++next_;
      return OkStatus();
    }

   private:
    std::shared_ptr<const TensorsDataset> dataset_;
    int64_t next_ = 0;
  };

  const Element components_;
  const bool slice_;
  const int64_t size_;
};

KernelFactory MakeTensorsKernel(bool slice) {
  return [slice](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
    CLAB_ASSIGN_OR_RETURN(data::Signature signature, data::ReadSignature(c.node(), "Toutput_types"));
    const std::string op = slice ? "TensorSliceDataset" : "TensorDataset";
    return LambdaKernel(
        [signature, slice, op](OpKernelContext* ctx) {
          Element components;
          for (int i = 0; i < ctx->num_inputs(); ++i) components.push_back(ctx->input(i));
          if (components.empty()) return FailInvalidArgument(ctx, op, " needs at least one component");
          if (slice) {
            for (size_t i = 0; i < components.size(); ++i) {
              const TensorShape& shape = components[i].shape();
              if (shape.rank() == 0)
                return FailInvalidArgument(ctx, "component ", i, " is a scalar; ", op,
                                           " slices its components along their first dimension");
              if (shape.dims()[0] != components[0].shape().dims()[0])
                return FailInvalidArgument(ctx, "component ", i, " has ", shape.dims()[0],
                                           " rows, but component 0 has ", components[0].shape().dims()[0]);
            }
          }
          // The first element stands for all: their dtypes and shapes are the same.
          if (!slice || components[0].shape().dims()[0] > 0) {
            Element first;
            for (const Tensor& t : components) first.push_back(slice ? data::SliceRow(t, 0) : t);
            Status ok = data::CheckElement(signature, first, ctx->name(), "an element");
            if (!ok.ok()) return ctx->SetStatus(ok);
          }
          ctx->set_output(0, data::DatasetTensor(std::make_shared<TensorsDataset>(op, signature, components, slice)));
        },
        false)(c);
  };
}

Status ScalarShape(ShapeContext& c) {
  c.set_output(0, PartialShape::Scalar());
  return OkStatus();
}

}  // namespace

void RegisterDatasetSourceOps(OpRegistry& registry) {
  for (const bool slice : {true, false}) {
    registry.Register(slice ? "TensorSliceDataset" : "TensorDataset")
        .Input("components: Toutput_types")
        .Output("handle: variant")
        .Attr("Toutput_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .SetShapeFn(ScalarShape)
        .Kernel("CPU", MakeTensorsKernel(slice))
        .Stateful()
        .Summary(slice ? "A dataset with one element per row of its inputs (tf.data.Dataset.from_tensor_slices)"
                       : "A dataset with one element, its inputs (tf.data.Dataset.from_tensors)")
        .Group("data");
  }
}

const OpFamily kDatasetSourceOpFamily("dataset_source", RegisterDatasetSourceOps);

}  // namespace clab
