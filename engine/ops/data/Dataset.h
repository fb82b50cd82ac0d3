// tf.data datasets as ClusterLab runs them: a dataset op outputs a scalar DT_VARIANT tensor
// holding an immutable Dataset; an iterator walks one. Datasets are built when their node
// runs and shared by every tensor that refers to them; iterators live in an iterator
// resource (IteratorV2, OneShotIterator) and are advanced by IteratorGetNext.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/core/VariantValue.h"
#include "clab/runtime/OpKernel.h"

#include <memory>
#include <string>
#include <vector>

namespace clab::data {

// One element of a dataset: a tensor per component (output_types).
using Element = std::vector<Tensor>;

// How deep datasets may nest: a dataset over at most this many others, and at most this
// many GetNext calls inside one another on a thread (a FlatMap whose function makes a
// FlatMap of itself nests without end). Each level takes stack; past the limit a step fails
// with INVALID_ARGUMENT instead of overflowing the stack. Real pipelines nest a few dozen.
inline constexpr int kMaxDatasetNesting = 1000;

class DatasetIterator {
 public:
  virtual ~DatasetIterator() = default;
  // The next element, or *end = true (element untouched) at the end of the sequence. Calls
  // are serialised by the iterator's owner. Fails past kMaxDatasetNesting nested calls.
  Status GetNext(Element* element, bool* end);

 private:
  virtual Status Next(Element* element, bool* end) = 0;
};

class Dataset : public VariantValue, public std::enable_shared_from_this<Dataset> {
 public:
  // `input`: the dataset this one reads, if any (for depth()).
  Dataset(std::string type_name, std::vector<DataType> dtypes, std::vector<PartialShape> shapes,
          const Dataset* input = nullptr)
      : type_name_(std::move(type_name)), dtypes_(std::move(dtypes)), shapes_(std::move(shapes)),
        depth_(input ? input->depth_ + 1 : 1) {}

  std::string TypeName() const override { return type_name_; }
  const std::vector<DataType>& output_dtypes() const { return dtypes_; }
  const std::vector<PartialShape>& output_shapes() const { return shapes_; }
  // 1 for a source, one more than its input for a dataset over another.
  int depth() const { return depth_; }
  // A fresh iterator from the first element; it keeps the dataset alive.
  virtual std::unique_ptr<DatasetIterator> MakeIterator() const = 0;

 protected:
  template <typename T>
  std::shared_ptr<const T> self() const {
    return std::static_pointer_cast<const T>(shared_from_this());
  }

 private:
  const std::string type_name_;
  const std::vector<DataType> dtypes_;
  const std::vector<PartialShape> shapes_;
  const int depth_;
};

using DatasetPtr = std::shared_ptr<const Dataset>;

// A scalar DT_VARIANT tensor holding `dataset`.
Tensor DatasetTensor(DatasetPtr dataset);
// The dataset of input `i`, or nullptr with the context's status set.
DatasetPtr DatasetInput(OpKernelContext* ctx, int i);
// The same for an op that makes a dataset over input `i`: also fails when that one is
// already kMaxDatasetNesting deep.
DatasetPtr DatasetInputToExtend(OpKernelContext* ctx, int i);
// A scalar input `i` of dtype int64 or bool, or false with the context's status set.
bool ScalarInput(OpKernelContext* ctx, int i, std::string_view what, int64_t* value);

// Row `row` of `t` (shape t.shape()[1:]), copied.
Tensor SliceRow(const Tensor& t, int64_t row);
// The rows stacked along a new first dimension; all must have one dtype and shape.
StatusOr<Tensor> StackRows(const std::vector<Tensor>& rows);

// The node's output_types and output_shapes attrs (of equal length).
struct Signature {
  std::vector<DataType> dtypes;
  std::vector<PartialShape> shapes;
};
StatusOr<Signature> ReadSignature(const tensorflow::NodeDef& node, std::string_view types_attr = "output_types");
// Whether `element` matches the signature; the error names `node` and the component.
Status CheckElement(const Signature& signature, const Element& element, const std::string& node, std::string_view what);

}  // namespace clab::data
