#include "ops/data/Dataset.h"

#include "ops/ArrayOpsInternal.h"

#include <absl/strings/str_cat.h>

#include <cstring>

namespace clab::data {

Tensor DatasetTensor(DatasetPtr dataset) {
  Tensor t(tensorflow::DT_VARIANT, TensorShape{});
  t.scalar<Variant>() = std::move(dataset);
  return t;
}

DatasetPtr DatasetInput(OpKernelContext* ctx, int i) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != tensorflow::DT_VARIANT || t.NumElements() != 1) {
    array_internal::FailInvalidArgument(ctx, "input ", i, " must be a dataset (a variant scalar), got ",
                                        DataTypeName(t.dtype()), " ", t.shape().DebugString());
    return nullptr;
  }
  auto dataset = std::dynamic_pointer_cast<const Dataset>(t.scalar<Variant>());
  if (!dataset)
    array_internal::FailInvalidArgument(ctx, "input ", i, " holds ",
                                        t.scalar<Variant>() ? t.scalar<Variant>()->TypeName() : "nothing",
                                        ", not a dataset");
  return dataset;
}

DatasetPtr DatasetInputToExtend(OpKernelContext* ctx, int i) {
  DatasetPtr dataset = DatasetInput(ctx, i);
  if (dataset && dataset->depth() >= kMaxDatasetNesting) {
    array_internal::FailInvalidArgument(ctx, "input ", i, " is a ", dataset->TypeName(), " already nested ",
                                        dataset->depth(), " datasets deep; a dataset over it would pass the limit of ",
                                        kMaxDatasetNesting);
    return nullptr;
  }
  return dataset;
}

Status DatasetIterator::GetNext(Element* element, bool* end) {
  // Calls on this thread inside one another: each inner GetNext of a chain, and those of
  // datasets a function makes while an outer GetNext runs it.
  static thread_local int nesting = 0;
  if (nesting >= kMaxDatasetNesting)
    return errors::InvalidArgument("Datasets nest deeper than ", kMaxDatasetNesting,
                                   " GetNext calls (a function that makes a dataset over itself?)");
  ++nesting;
  Status status = Next(element, end);
  --nesting;
  return status;
}

bool ScalarInput(OpKernelContext* ctx, int i, std::string_view what, int64_t* value) {
  const Tensor& t = ctx->input(i);
  if (t.NumElements() != 1 || t.shape().rank() != 0) {
    array_internal::FailInvalidArgument(ctx, what, " must be a scalar, got shape ", t.shape().DebugString());
    return false;
  }
  switch (t.dtype()) {
    case tensorflow::DT_INT64: *value = t.scalar<int64_t>(); return true;
    case tensorflow::DT_INT32: *value = t.scalar<int32_t>(); return true;
    case tensorflow::DT_BOOL: *value = t.scalar<bool>() ? 1 : 0; return true;
    default: array_internal::FailInvalidArgument(ctx, what, " has dtype ", DataTypeName(t.dtype())); return false;
  }
}

namespace {

bool IsStringLike(DataType dtype) { return dtype == DT_STRING || dtype == tensorflow::DT_RESOURCE; }

}  // namespace

Tensor SliceRow(const Tensor& t, int64_t row) {
  std::vector<int64_t> dims(t.shape().dims().begin() + 1, t.shape().dims().end());
  Tensor out(t.dtype(), TensorShape(dims));
  const int64_t n = out.NumElements();
  if (IsStringLike(t.dtype())) {
    for (int64_t i = 0; i < n; ++i) out.data<std::string>()[i] = t.data<std::string>()[row * n + i];
  } else if (t.dtype() == tensorflow::DT_VARIANT) {
    for (int64_t i = 0; i < n; ++i) out.data<Variant>()[i] = t.data<Variant>()[row * n + i];
  } else {
    const size_t bytes = out.TotalBytes();
    std::memcpy(out.raw_data(), static_cast<const char*>(t.raw_data()) + static_cast<size_t>(row) * bytes, bytes);
  }
  return out;
}

StatusOr<Tensor> StackRows(const std::vector<Tensor>& rows) {
  if (rows.empty()) return errors::InvalidArgument("Cannot stack no rows");
  const Tensor& first = rows[0];
  std::vector<int64_t> dims = {static_cast<int64_t>(rows.size())};
  dims.insert(dims.end(), first.shape().dims().begin(), first.shape().dims().end());
  for (size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].dtype() != first.dtype() || rows[r].shape() != first.shape())
      return errors::InvalidArgument("Cannot batch tensors of different shapes: element 0 is ",
                                     DataTypeName(first.dtype()), " ", first.shape().DebugString(), ", element ", r,
                                     " is ", DataTypeName(rows[r].dtype()), " ", rows[r].shape().DebugString());
  }
  Tensor out(first.dtype(), TensorShape(dims));
  const int64_t n = first.NumElements();
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto offset = static_cast<int64_t>(r) * n;
    if (IsStringLike(first.dtype())) {
      for (int64_t i = 0; i < n; ++i) out.data<std::string>()[offset + i] = rows[r].data<std::string>()[i];
    } else if (first.dtype() == tensorflow::DT_VARIANT) {
      for (int64_t i = 0; i < n; ++i) out.data<Variant>()[offset + i] = rows[r].data<Variant>()[i];
    } else {
      std::memcpy(static_cast<char*>(out.raw_data()) + r * rows[r].TotalBytes(), rows[r].raw_data(),
                  rows[r].TotalBytes());
    }
  }
  return out;
}

StatusOr<Signature> ReadSignature(const tensorflow::NodeDef& node, std::string_view types_attr) {
  Signature signature;
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, types_attr, &signature.dtypes));
  auto shapes = node.attr().find("output_shapes");
  if (shapes != node.attr().end())
    for (const auto& shape : shapes->second.list().shape()) signature.shapes.push_back(PartialShape::FromProto(shape));
  if (signature.shapes.empty()) signature.shapes.assign(signature.dtypes.size(), PartialShape::Unknown());
  if (signature.shapes.size() != signature.dtypes.size())
    return errors::InvalidArgument("Node '", node.name(), "' has ", signature.dtypes.size(), " ", types_attr, " but ",
                                   signature.shapes.size(), " output_shapes");
  return signature;
}

Status CheckElement(const Signature& signature, const Element& element, const std::string& node,
                    std::string_view what) {
  if (element.size() != signature.dtypes.size())
    return errors::InvalidArgument("Node '", node, "': ", what, " has ", element.size(),
                                   " component(s), but the node declares ", signature.dtypes.size());
  for (size_t i = 0; i < element.size(); ++i) {
    if (element[i].dtype() != signature.dtypes[i])
      return errors::InvalidArgument("Node '", node, "': component ", i, " of ", what, " is ",
                                     DataTypeName(element[i].dtype()), ", but the node declares ",
                                     DataTypeName(signature.dtypes[i]));
    if (!signature.shapes[i].IsCompatibleWith(PartialShape(element[i].shape())))
      return errors::InvalidArgument("Node '", node, "': component ", i, " of ", what, " has shape ",
                                     element[i].shape().DebugString(), ", but the node declares ",
                                     signature.shapes[i].DebugString());
  }
  return OkStatus();
}

}  // namespace clab::data
