// The tf.data ops that regroup elements: BatchDataset/BatchDatasetV2 stack batch_size
// consecutive elements along a new first dimension (the last, smaller batch is kept unless
// drop_remainder), PaddedBatchDataset(V2) pads them to a common shape first, ShuffleDataset
// draws elements at random from a buffer of buffer_size, RepeatDataset starts its input over `count` times (-1:
// forever); ShuffleAndRepeatDataset (tf.contrib.data.shuffle_and_repeat) is the two in one.
//
// Shuffling is deterministic for fixed seeds: the draws come from Philox4x32-10 keyed by
// (seed, seed2) and the iteration's number, so the same graph gives the same order on every
// machine and run. With reshuffle_each_iteration, each new iteration over the dataset (each
// epoch of a RepeatDataset above it) takes the next iteration number and so a new order;
// without, every iteration repeats the first order. seed = seed2 = 0 draws fresh seeds.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/Philox.h"
#include "ops/data/Dataset.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;
using data::Dataset;
using data::DatasetIterator;
using data::DatasetPtr;
using data::Element;

class BatchDataset : public Dataset {
 public:
  BatchDataset(data::Signature signature, DatasetPtr input, int64_t batch_size, bool drop_remainder)
      : Dataset("BatchDataset", std::move(signature.dtypes), std::move(signature.shapes), input.get()),
        input_(std::move(input)), batch_size_(batch_size), drop_remainder_(drop_remainder) {}

  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<BatchDataset>());
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const BatchDataset> dataset)
        : dataset_(std::move(dataset)), input_(dataset_->input_->MakeIterator()) {}

    Status Next(Element* element, bool* end) override {
      std::vector<Element> rows;
      bool input_end = false;
      while (static_cast<int64_t>(rows.size()) < dataset_->batch_size_) {
        Element row;
        CLAB_RETURN_IF_ERROR(input_->GetNext(&row, &input_end));
        if (input_end) break;
        rows.push_back(std::move(row));
      }
      *end = rows.empty() || (input_end && dataset_->drop_remainder_);
      if (*end) return OkStatus();
      element->clear();
      for (size_t c = 0; c < rows[0].size(); ++c) {
        std::vector<Tensor> component;
        for (const Element& row : rows) component.push_back(row[c]);
        auto stacked = data::StackRows(component);
        if (!stacked.ok())
          return errors::Annotate(stacked.status(), "BatchDataset: component " + std::to_string(c) + ": ");
        element->push_back(*std::move(stacked));
      }
      return OkStatus();
    }

   private:
    std::shared_ptr<const BatchDataset> dataset_;
    std::unique_ptr<DatasetIterator> input_;
  };

  const DatasetPtr input_;
  const int64_t batch_size_;
  const bool drop_remainder_;
};

// Like BatchDataset, but components of different shapes are padded to a common shape:
// dimension d of component c has padded_shapes[c][d] entries, or (-1) as many as the
// largest in the batch; the rest hold padding_values[c].
class PaddedBatchDataset : public Dataset {
 public:
  PaddedBatchDataset(data::Signature signature, DatasetPtr input, int64_t batch_size, bool drop_remainder,
                     std::vector<std::vector<int64_t>> padded_shapes, Element padding_values)
      : Dataset("PaddedBatchDataset", std::move(signature.dtypes), std::move(signature.shapes), input.get()),
        input_(std::move(input)), batch_size_(batch_size), drop_remainder_(drop_remainder),
        padded_shapes_(std::move(padded_shapes)), padding_values_(std::move(padding_values)) {}

  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<PaddedBatchDataset>());
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const PaddedBatchDataset> dataset)
        : dataset_(std::move(dataset)), input_(dataset_->input_->MakeIterator()) {}

    Status Next(Element* element, bool* end) override {
      const PaddedBatchDataset& d = *dataset_;
      std::vector<Element> rows;
      bool input_end = false;
      while (static_cast<int64_t>(rows.size()) < d.batch_size_) {
        Element row;
        CLAB_RETURN_IF_ERROR(input_->GetNext(&row, &input_end));
        if (input_end) break;
        if (row.size() != d.padded_shapes_.size())
          return errors::InvalidArgument("PaddedBatchDataset: an element has ", row.size(), " components, but ",
                                         d.padded_shapes_.size(), " padded shapes are given");
        rows.push_back(std::move(row));
      }
      *end = rows.empty() || (input_end && d.drop_remainder_);
      if (*end) return OkStatus();
      element->clear();
      for (size_t c = 0; c < d.padded_shapes_.size(); ++c) {
        CLAB_ASSIGN_OR_RETURN(Tensor batch, Pad(rows, c));
        element->push_back(std::move(batch));
      }
      return OkStatus();
    }

   private:
    StatusOr<Tensor> Pad(const std::vector<Element>& rows, size_t c) const {
      const std::vector<int64_t>& padded = dataset_->padded_shapes_[c];
      const Tensor& padding = dataset_->padding_values_[c];
      std::vector<int64_t> target = padded;
      for (auto& dim : target) dim = std::max<int64_t>(dim, 0);
      for (const Element& row : rows) {
        const Tensor& t = row[c];
        if (t.dtype() != padding.dtype() || t.shape().rank() != static_cast<int>(padded.size()))
          return errors::InvalidArgument("PaddedBatchDataset: component ", c, " is ", DataTypeName(t.dtype()), " ",
                                         t.shape().DebugString(), ", but its padded shape has rank ", padded.size(),
                                         " and its padding value is ", DataTypeName(padding.dtype()));
        for (size_t i = 0; i < padded.size(); ++i) {
          const int64_t dim = t.shape().dims()[i];
          if (padded[i] >= 0 && dim > padded[i])
            return errors::InvalidArgument("PaddedBatchDataset: dimension ", i, " of component ", c, " has ", dim,
                                           " entries, more than its padded shape's ", padded[i]);
          target[i] = std::max(target[i], dim);
        }
      }
      std::vector<int64_t> dims = {static_cast<int64_t>(rows.size())};
      dims.insert(dims.end(), target.begin(), target.end());
      Tensor out(padding.dtype(), TensorShape(dims));
      const bool strings = padding.dtype() == DT_STRING;
      const size_t width = strings ? 0 : DataTypeSize(padding.dtype());
      auto* bytes = static_cast<char*>(out.raw_data());
      for (int64_t i = 0; i < out.NumElements(); ++i) {
        if (strings) out.data<std::string>()[i] = padding.scalar<std::string>();
        else std::memcpy(bytes + i * width, padding.raw_data(), width);
      }
      // Strides of the padded row, to place each element's entries.
      std::vector<int64_t> stride(target.size(), 1);
      for (size_t i = target.size(); i-- > 1;) stride[i - 1] = stride[i] * target[i];
      const int64_t row_size = TensorShape(target).num_elements();
      for (size_t r = 0; r < rows.size(); ++r) {
        const Tensor& t = rows[r][c];
        const std::vector<int64_t>& shape = t.shape().dims();
        for (int64_t flat = 0; flat < t.NumElements(); ++flat) {
          int64_t rest = flat, offset = static_cast<int64_t>(r) * row_size;
          for (size_t i = shape.size(); i-- > 0;) {
            offset += (rest % shape[i]) * stride[i];
            rest /= shape[i];
          }
          if (strings) out.data<std::string>()[offset] = t.data<std::string>()[flat];
          else std::memcpy(bytes + offset * width, static_cast<const char*>(t.raw_data()) + flat * width, width);
        }
      }
      return out;
    }

    std::shared_ptr<const PaddedBatchDataset> dataset_;
    std::unique_ptr<DatasetIterator> input_;
  };

  const DatasetPtr input_;
  const int64_t batch_size_;
  const bool drop_remainder_;
  const std::vector<std::vector<int64_t>> padded_shapes_;
  const Element padding_values_;
};

class ShuffleDataset : public Dataset {
 public:
  ShuffleDataset(data::Signature signature, DatasetPtr input, int64_t buffer_size, uint64_t key, bool reshuffle)
      : Dataset("ShuffleDataset", std::move(signature.dtypes), std::move(signature.shapes), input.get()),
        input_(std::move(input)), buffer_size_(buffer_size), key_(key), reshuffle_(reshuffle) {}

  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    const uint64_t iteration = reshuffle_ ? iterations_.fetch_add(1) : 0;
    return std::make_unique<Iterator>(self<ShuffleDataset>(), philox::Mix64(key_ ^ philox::Mix64(iteration)));
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const ShuffleDataset> dataset, uint64_t key)
        : dataset_(std::move(dataset)), input_(dataset_->input_->MakeIterator()), key_(key) {}

    Status Next(Element* element, bool* end) override {
      while (!input_end_ && static_cast<int64_t>(buffer_.size()) < dataset_->buffer_size_) {
        Element row;
        CLAB_RETURN_IF_ERROR(input_->GetNext(&row, &input_end_));
        if (!input_end_) buffer_.push_back(std::move(row));
      }
      *end = buffer_.empty();
      if (*end) return OkStatus();
      const philox::PhiloxBlock block =
          philox::Philox4x32({static_cast<uint32_t>(draws_), static_cast<uint32_t>(draws_ >> 32), 0x5eed, 0}, key_);
      ++draws_;
      const uint64_t bits = (uint64_t{block[0]} << 32) | block[1];
      const auto pick = static_cast<size_t>((static_cast<unsigned __int128>(bits) * buffer_.size()) >> 64);
      *element = std::move(buffer_[pick]);
      buffer_[pick] = std::move(buffer_.back());
      buffer_.pop_back();
      return OkStatus();
    }

   private:
    std::shared_ptr<const ShuffleDataset> dataset_;
    std::unique_ptr<DatasetIterator> input_;
    const uint64_t key_;
    std::vector<Element> buffer_;
    bool input_end_ = false;
    uint64_t draws_ = 0;
  };

  const DatasetPtr input_;
  const int64_t buffer_size_;
  const uint64_t key_;
  const bool reshuffle_;
  mutable std::atomic<uint64_t> iterations_{0};
};

class RepeatDataset : public Dataset {
 public:
  RepeatDataset(data::Signature signature, DatasetPtr input, int64_t count)
      : Dataset("RepeatDataset", std::move(signature.dtypes), std::move(signature.shapes), input.get()),
        input_(std::move(input)), count_(count) {}

  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<RepeatDataset>());
  }

 private:
  class Iterator : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const RepeatDataset> dataset) : dataset_(std::move(dataset)) {}

    Status Next(Element* element, bool* end) override {
      const int64_t count = dataset_->count_;
      while (count < 0 || epoch_ < count) {
        if (!input_) input_ = dataset_->input_->MakeIterator();
        CLAB_RETURN_IF_ERROR(input_->GetNext(element, end));
        if (!*end) {
          produced_in_epoch_ = true;
          return OkStatus();
        }
        input_.reset();
        ++epoch_;
        // An empty input repeated forever would loop here forever: it ends instead.
        if (!produced_in_epoch_) break;
        produced_in_epoch_ = false;
      }
      *end = true;
      return OkStatus();
    }

   private:
    std::shared_ptr<const RepeatDataset> dataset_;
    std::unique_ptr<DatasetIterator> input_;
    int64_t epoch_ = 0;
    bool produced_in_epoch_ = false;
  };

  const DatasetPtr input_;
  const int64_t count_;
};

KernelFactory MakeBatchKernel(bool v2) {
  return [v2](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
    CLAB_ASSIGN_OR_RETURN(data::Signature signature, data::ReadSignature(c.node()));
    return LambdaKernel(
        [signature, v2](OpKernelContext* ctx) {
          DatasetPtr input = data::DatasetInputToExtend(ctx, 0);
          int64_t batch_size = 0, drop_remainder = 0;
          if (!input || !data::ScalarInput(ctx, 1, "batch_size", &batch_size)) return;
          if (v2 && !data::ScalarInput(ctx, 2, "drop_remainder", &drop_remainder)) return;
          if (batch_size <= 0)
            return FailInvalidArgument(ctx, "batch_size must be greater than zero, got ", batch_size);
          ctx->set_output(0, data::DatasetTensor(std::make_shared<BatchDataset>(signature, std::move(input), batch_size,
                                                                                drop_remainder != 0)));
        },
        false)(c);
  };
}

KernelFactory MakePaddedBatchKernel(bool v2) {
  return [v2](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
    CLAB_ASSIGN_OR_RETURN(data::Signature signature, data::ReadSignature(c.node(), "Toutput_types"));
    int64_t n = 0;
    CLAB_RETURN_IF_ERROR(c.GetAttr("N", &n));
    return LambdaKernel(
        [signature, v2, n](OpKernelContext* ctx) {
          DatasetPtr input = data::DatasetInputToExtend(ctx, 0);
          int64_t batch_size = 0, drop_remainder = 0;
          if (!input || !data::ScalarInput(ctx, 1, "batch_size", &batch_size)) return;
          if (batch_size <= 0)
            return FailInvalidArgument(ctx, "batch_size must be greater than zero, got ", batch_size);
          std::vector<std::vector<int64_t>> padded_shapes;
          Element padding_values;
          for (int64_t i = 0; i < n; ++i) {
            const Tensor& shape = ctx->input(2 + static_cast<int>(i));
            if (shape.dtype() != tensorflow::DT_INT64 || shape.shape().rank() != 1)
              return FailInvalidArgument(ctx, "padded_shapes[", i, "] must be an int64 vector");
            padded_shapes.emplace_back(shape.data<int64_t>(), shape.data<int64_t>() + shape.NumElements());
            const Tensor& value = ctx->input(2 + static_cast<int>(n + i));
            if (value.NumElements() != 1 || value.shape().rank() != 0)
              return FailInvalidArgument(ctx, "padding_values[", i, "] must be a scalar");
            if (value.dtype() == tensorflow::DT_VARIANT || value.dtype() == tensorflow::DT_RESOURCE)
              return FailInvalidArgument(ctx, "padding_values[", i, "] is ", DataTypeName(value.dtype()),
                                         ", which cannot be padded");
            padding_values.push_back(value);
          }
          if (v2 && !data::ScalarInput(ctx, 2 + static_cast<int>(2 * n), "drop_remainder", &drop_remainder)) return;
          ctx->set_output(0, data::DatasetTensor(std::make_shared<PaddedBatchDataset>(
                                 signature, std::move(input), batch_size, drop_remainder != 0, std::move(padded_shapes),
                                 std::move(padding_values))));
        },
        false)(c);
  };
}

// ShuffleDataset, or with `and_repeat` ShuffleAndRepeatDataset (a shuffle reshuffled for
// each of `count` repetitions).
KernelFactory MakeShuffleKernel(bool and_repeat) {
  return [and_repeat](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
    CLAB_ASSIGN_OR_RETURN(data::Signature signature, data::ReadSignature(c.node()));
    bool reshuffle = true;
    if (!and_repeat) CLAB_RETURN_IF_ERROR(c.GetAttr("reshuffle_each_iteration", &reshuffle));
    return LambdaKernel(
        [signature, reshuffle, and_repeat](OpKernelContext* ctx) {
          DatasetPtr input = data::DatasetInputToExtend(ctx, 0);
          int64_t buffer_size = 0, seed = 0, seed2 = 0;
          if (!input || !data::ScalarInput(ctx, 1, "buffer_size", &buffer_size) ||
              !data::ScalarInput(ctx, 2, "seed", &seed) || !data::ScalarInput(ctx, 3, "seed2", &seed2))
            return;
          if (buffer_size <= 0)
            return FailInvalidArgument(ctx, "buffer_size must be greater than zero, got ", buffer_size);
          if (seed == 0 && seed2 == 0) {
            std::random_device device;
            seed = (int64_t{device()} << 32) | device();
            seed2 = (int64_t{device()} << 32) | device();
          }
          int64_t count = 1;
          if (and_repeat && !data::ScalarInput(ctx, 4, "count", &count)) return;
          const uint64_t key = philox::Mix64(philox::Mix64(static_cast<uint64_t>(seed)) ^ static_cast<uint64_t>(seed2));
          DatasetPtr shuffled =
              std::make_shared<ShuffleDataset>(signature, std::move(input), buffer_size, key, reshuffle);
          if (and_repeat) shuffled = std::make_shared<RepeatDataset>(signature, std::move(shuffled), count);
          ctx->set_output(0, data::DatasetTensor(std::move(shuffled)));
        },
        false)(c);
  };
}

StatusOr<std::unique_ptr<OpKernel>> MakeRepeatKernel(OpKernelConstruction& c) {
  CLAB_ASSIGN_OR_RETURN(data::Signature signature, data::ReadSignature(c.node()));
  return LambdaKernel(
      [signature](OpKernelContext* ctx) {
        DatasetPtr input = data::DatasetInputToExtend(ctx, 0);
        int64_t count = 0;
        if (!input || !data::ScalarInput(ctx, 1, "count", &count)) return;
        ctx->set_output(0, data::DatasetTensor(std::make_shared<RepeatDataset>(signature, std::move(input), count)));
      },
      false)(c);
}

Status ScalarShape(ShapeContext& c) {
  c.set_output(0, PartialShape::Scalar());
  return OkStatus();
}

}  // namespace

void RegisterDatasetBatchOps(OpRegistry& registry) {
  for (const bool v2 : {false, true}) {
    auto b = registry.Register(v2 ? "BatchDatasetV2" : "BatchDataset");
    b.Input("input_dataset: variant").Input("batch_size: int64");
    if (v2) b.Input("drop_remainder: bool").Attr("parallel_copy: bool = false");
    b.Output("handle: variant")
        .Attr("output_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .SetShapeFn(ScalarShape)
        .Kernel("CPU", MakeBatchKernel(v2))
        .Stateful()
        .Summary("A dataset of batch_size consecutive elements stacked along a new first dimension")
        .Group("data");
  }
  for (const bool v2 : {false, true}) {
    auto b = registry.Register(v2 ? "PaddedBatchDatasetV2" : "PaddedBatchDataset");
    b.Input("input_dataset: variant")
        .Input("batch_size: int64")
        .Input("padded_shapes: N * int64")
        .Input("padding_values: Toutput_types");
    if (v2) b.Input("drop_remainder: bool").Attr("parallel_copy: bool = false");
    b.Output("handle: variant")
        .Attr("Toutput_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .Attr("N: int >= 1")
        .SetShapeFn(ScalarShape)
        .Kernel("CPU", MakePaddedBatchKernel(v2))
        .Stateful()
        .Summary("A dataset of batches whose components are padded to a common shape")
        .Group("data");
  }
  registry.Register("ShuffleDataset")
      .Input("input_dataset: variant")
      .Input("buffer_size: int64")
      .Input("seed: int64")
      .Input("seed2: int64")
      .Output("handle: variant")
      .Attr("reshuffle_each_iteration: bool = true")
      .Attr("output_types: list(type) >= 1")
      .Attr("output_shapes: list(shape) >= 1")
      .SetShapeFn(ScalarShape)
      .Kernel("CPU", MakeShuffleKernel(false))
      .Stateful()
      .Summary("A dataset of its input's elements drawn at random from a buffer of buffer_size")
      .Group("data");
  registry.Register("ShuffleAndRepeatDataset")
      .Input("input_dataset: variant")
      .Input("buffer_size: int64")
      .Input("seed: int64")
      .Input("seed2: int64")
      .Input("count: int64")
      .Output("handle: variant")
      .Attr("output_types: list(type) >= 1")
      .Attr("output_shapes: list(shape) >= 1")
      .SetShapeFn(ScalarShape)
      .Kernel("CPU", MakeShuffleKernel(true))
      .Stateful()
      .Summary("ShuffleDataset then RepeatDataset, with a new order for each repetition")
      .Group("data");
  registry.Register("RepeatDataset")
      .Input("input_dataset: variant")
      .Input("count: int64")
      .Output("handle: variant")
      .Attr("output_types: list(type) >= 1")
      .Attr("output_shapes: list(shape) >= 1")
      .SetShapeFn(ScalarShape)
      .Kernel("CPU", MakeRepeatKernel)
      .Stateful()
      .Summary("A dataset of its input repeated count times (-1: forever)")
      .Group("data");
}

const OpFamily kDatasetBatchOpFamily("dataset_batch", RegisterDatasetBatchOps);

}  // namespace clab
