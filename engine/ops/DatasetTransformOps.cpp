// The tf.data ops that transform elements one at a time: MapDataset (and
// ParallelMapDataset, run here one element at a time, in order) calls the library function
// `f` on each element's components followed by the node's captured inputs
// (other_arguments); FilterDataset keeps the elements for which `predicate` returns true;
// FlatMapDataset's `f` makes a dataset of each element, whose elements follow in turn.
// PrefetchDataset, OptimizeDataset and ModelDataset (what TensorFlow adds for prefetching,
// graph rewrites and autotuning) pass their input through unchanged.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/FunctionLibrary.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/data/Dataset.h"

#include <absl/strings/str_cat.h>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;
using data::Dataset;
using data::DatasetIterator;
using data::DatasetPtr;
using data::Element;

// What a CallingDataset does with the function's results.
enum class Mode {
  kMap,      // they are the element
  kFilter,   // one bool: keep the input element or not
  kFlatMap,  // one dataset, whose elements follow one another
};

// Calls `function` on an element's components and the captured tensors.
class CallingDataset : public Dataset {
 public:
  CallingDataset(std::string type_name, data::Signature signature, DatasetPtr input,
                 std::shared_ptr<FunctionInstance> function, Element captured, std::string node, Mode mode)
      : Dataset(std::move(type_name), std::move(signature.dtypes), std::move(signature.shapes), input.get()),
        input_(std::move(input)), function_(std::move(function)), captured_(std::move(captured)),
        node_(std::move(node)), mode_(mode) {}

  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<CallingDataset>());
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const CallingDataset> dataset)
        : dataset_(std::move(dataset)), input_(dataset_->input_->MakeIterator()) {}

    Status Next(Element* element, bool* end) override {
      const CallingDataset& d = *dataset_;
      while (true) {
        if (inner_) {
          CLAB_RETURN_IF_ERROR(inner_->GetNext(element, end));
          if (!*end) return OkStatus();
          inner_.reset();
        }
        Element in;
        CLAB_RETURN_IF_ERROR(input_->GetNext(&in, end));
        if (*end) return OkStatus();
        std::vector<Tensor> args = in;
        args.insert(args.end(), d.captured_.begin(), d.captured_.end());
        CLAB_ASSIGN_OR_RETURN(std::vector<Tensor> out, d.function_->Call(std::move(args)));
        switch (d.mode_) {
          case Mode::kMap:
            *element = std::move(out);
            return data::CheckElement({d.output_dtypes(), d.output_shapes()}, *element, d.node_,
                                      absl::StrCat("the result of function '", d.function_->name(), "'"));
          case Mode::kFilter:
            if (out.size() != 1 || out[0].dtype() != DT_BOOL || out[0].NumElements() != 1)
              return errors::InvalidArgument("Node '", d.node_, "': predicate '", d.function_->name(),
                                             "' must return one bool scalar");
            if (out[0].scalar<bool>()) {
              *element = std::move(in);
              return OkStatus();
            }
            break;
          case Mode::kFlatMap: {
            auto dataset = out.size() == 1 && out[0].dtype() == tensorflow::DT_VARIANT && out[0].NumElements() == 1
                               ? std::dynamic_pointer_cast<const Dataset>(out[0].scalar<Variant>())
                               : nullptr;
            if (!dataset)
              return errors::InvalidArgument("Node '", d.node_, "': function '", d.function_->name(),
                                             "' must return one dataset");
            if (dataset->output_dtypes() != d.output_dtypes())
              return errors::InvalidArgument("Node '", d.node_, "': the dataset function '", d.function_->name(),
                                             "' returns has other element types than the node's output_types");
            inner_ = dataset->MakeIterator();
            break;
          }
        }
      }
    }

   private:
    std::shared_ptr<const CallingDataset> dataset_;
    std::unique_ptr<DatasetIterator> input_;
    std::unique_ptr<DatasetIterator> inner_;  // FlatMap: the current element's dataset
  };

  const DatasetPtr input_;
  const std::shared_ptr<FunctionInstance> function_;
  const Element captured_;
  const std::string node_;
  const Mode mode_;
};

class CallingKernel : public OpKernel {
 public:
  CallingKernel(std::string op, data::Signature signature, std::shared_ptr<FunctionInstance> function, int num_captured,
                Mode mode)
      : op_(std::move(op)), signature_(std::move(signature)), function_(std::move(function)),
        num_captured_(num_captured), mode_(mode) {}

  void Compute(OpKernelContext* ctx) override {
    DatasetPtr input = data::DatasetInputToExtend(ctx, 0);
    if (!input) return;
    Element captured;
    for (int i = 0; i < num_captured_; ++i) captured.push_back(ctx->input(1 + i));
    const size_t components = input->output_dtypes().size();
    const size_t expected = components + captured.size();
    if (function_->arg_types().size() != expected)
      return FailInvalidArgument(ctx, "function '", function_->name(), "' takes ", function_->arg_types().size(),
                                 " argument(s), but node '", ctx->name(), "' passes ", expected, " (", components,
                                 " component(s) of each element and ", captured.size(), " captured tensor(s))");
    for (size_t i = 0; i < components; ++i) {
      if (function_->arg_types()[i] != input->output_dtypes()[i])
        return FailInvalidArgument(ctx, "argument ", i, " of function '", function_->name(), "' is ",
                                   DataTypeName(function_->arg_types()[i]), ", but component ", i,
                                   " of the input's elements is ", DataTypeName(input->output_dtypes()[i]));
    }
    data::Signature signature = signature_;
    if (mode_ == Mode::kFilter) signature = {input->output_dtypes(), input->output_shapes()};
    ctx->set_output(0, data::DatasetTensor(std::make_shared<CallingDataset>(op_, std::move(signature), input, function_,
                                                                            std::move(captured), ctx->name(), mode_)));
  }

 private:
  const std::string op_;
  const data::Signature signature_;
  const std::shared_ptr<FunctionInstance> function_;
  const int num_captured_;
  const Mode mode_;
};

KernelFactory MakeCallingKernel(std::string op, std::string func_attr, Mode mode) {
  return [op, func_attr, mode](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
    CLAB_ASSIGN_OR_RETURN(data::Signature signature, data::ReadSignature(c.node()));
    std::vector<DataType> captured;
    CLAB_RETURN_IF_ERROR(c.GetAttr("Targuments", &captured));
    auto attr = c.node().attr().find(func_attr);
    if (attr == c.node().attr().end() || attr->second.value_case() != tensorflow::AttrValue::kFunc)
      return errors::InvalidArgument("Node '", c.name(), "' (", op, ") has no function in attr '", func_attr, "'");
    if (c.function_library() == nullptr)
      return errors::InvalidArgument("Node '", c.name(), "' (", op, ") calls function '", attr->second.func().name(),
                                     "', but it runs without its graph's function library");
    CLAB_ASSIGN_OR_RETURN(std::shared_ptr<FunctionInstance> function,
                          c.function_library()->Instantiate(c.name(), func_attr, attr->second.func(), c.device()));
    if (mode == Mode::kFilter && (function->ret_types().size() != 1 || function->ret_types()[0] != DT_BOOL))
      return errors::InvalidArgument("Node '", c.name(), "' (", op, "): predicate '", function->name(),
                                     "' must return one bool");
    if (mode == Mode::kFlatMap && function->ret_types() != std::vector<DataType>{tensorflow::DT_VARIANT})
      return errors::InvalidArgument("Node '", c.name(), "' (", op, "): function '", function->name(),
                                     "' must return one dataset (variant)");
    if (mode == Mode::kMap && function->ret_types() != signature.dtypes)
      return errors::InvalidArgument("Node '", c.name(), "' (", op, "): function '", function->name(), "' returns ",
                                     function->ret_types().size(), " tensor(s) whose types differ from output_types");
    return std::unique_ptr<OpKernel>(std::make_unique<CallingKernel>(op, std::move(signature), std::move(function),
                                                                     static_cast<int>(captured.size()), mode));
  };
}

// Outputs its input dataset.
KernelFactory MakePassThroughKernel() {
  return LambdaKernel(
      [](OpKernelContext* ctx) {
        if (DatasetPtr input = data::DatasetInput(ctx, 0)) ctx->set_output(0, data::DatasetTensor(input));
      },
      false);
}

Status ScalarShape(ShapeContext& c) {
  c.set_output(0, PartialShape::Scalar());
  return OkStatus();
}

OpDefBuilder& Signature(OpDefBuilder& b) {
  return b.Attr("output_types: list(type) >= 1").Attr("output_shapes: list(shape) >= 1");
}

}  // namespace

void RegisterDatasetTransformOps(OpRegistry& registry) {
  for (const bool parallel : {false, true}) {
    const std::string op = parallel ? "ParallelMapDataset" : "MapDataset";
    auto b = registry.Register(op);
    b.Input("input_dataset: variant").Input("other_arguments: Targuments");
    if (parallel) b.Input("num_parallel_calls: int32");
    b.Output("handle: variant").Attr("f: func").Attr("Targuments: list(type) >= 0");
    Signature(b)
        .Attr("use_inter_op_parallelism: bool = true")
        .Attr("preserve_cardinality: bool = false")
        .SetShapeFn(ScalarShape)
        .Kernel("CPU", MakeCallingKernel(op, "f", Mode::kMap))
        .Stateful()
        .Summary(parallel ? "A dataset of f applied to each element (run one element at a time here)"
                          : "A dataset of f applied to each element")
        .Group("data");
    if (parallel) b.Attr("sloppy: bool = false");
  }
  auto filter = registry.Register("FilterDataset");
  filter.Input("input_dataset: variant")
      .Input("other_arguments: Targuments")
      .Output("handle: variant")
      .Attr("predicate: func")
      .Attr("Targuments: list(type) >= 0");
  Signature(filter)
      .SetShapeFn(ScalarShape)
      .Kernel("CPU", MakeCallingKernel("FilterDataset", "predicate", Mode::kFilter))
      .Stateful()
      .Summary("A dataset of the elements for which predicate returns true")
      .Group("data");

  auto flat_map = registry.Register("FlatMapDataset");
  flat_map.Input("input_dataset: variant")
      .Input("other_arguments: Targuments")
      .Output("handle: variant")
      .Attr("f: func")
      .Attr("Targuments: list(type) >= 0");
  Signature(flat_map)
      .SetShapeFn(ScalarShape)
      .Kernel("CPU", MakeCallingKernel("FlatMapDataset", "f", Mode::kFlatMap))
      .Stateful()
      .Summary("The elements of the datasets f makes of each element, one dataset after another")
      .Group("data");

  auto prefetch = registry.Register("PrefetchDataset");
  prefetch.Input("input_dataset: variant").Input("buffer_size: int64").Output("handle: variant");
  Signature(prefetch)
      .Attr("slack_period: int = 0")
      .Attr("legacy_autotune: bool = true")
      .SetShapeFn(ScalarShape)
      .Kernel("CPU", MakePassThroughKernel())
      .Stateful()
      .Summary("Its input dataset (elements are produced when asked for, so there is nothing to prefetch)")
      .Group("data");
  auto optimize = registry.Register("OptimizeDataset");
  optimize.Input("input_dataset: variant").Input("optimizations: string").Output("handle: variant");
  Signature(optimize)
      .Attr("optimization_configs: list(string) = []")
      .SetShapeFn(ScalarShape)
      .Kernel("CPU", MakePassThroughKernel())
      .Stateful()
      .Summary("Its input dataset (ClusterLab applies no tf.data graph rewrites)")
      .Group("data");
  auto model = registry.Register("ModelDataset");
  model.Input("input_dataset: variant").Output("handle: variant");
  Signature(model)
      .Attr("algorithm: int = 0")
      .Attr("cpu_budget: int = 0")
      .SetShapeFn(ScalarShape)
      .Kernel("CPU", MakePassThroughKernel())
      .Stateful()
      .Summary("Its input dataset (ClusterLab does not autotune pipelines)")
      .Group("data");
}

const OpFamily kDatasetTransformOpFamily("dataset_transform", RegisterDatasetTransformOps);

}  // namespace clab
