// ParseExample: a batch of serialized tf.Example records (tensorflow/example.proto) turned
// into tensors, as TensorFlow's op of that name (tf.parse_example) does:
//  - each dense key gives one tensor [batch] + dense_shape: an example's values for the key,
//    or the key's default where the example lacks it (an empty default makes the key
//    required). A dense_shape whose first dimension is unknown (tf.FixedLenSequenceFeature)
//    takes any whole number of rows, padded to the longest example with the default (a
//    scalar) or zeros;
//  - each sparse key gives a SparseTensor as three tensors: indices [n, 2] (example,
//    position), values [n] and dense shape [batch, longest list].
// A feature's list must hold the key's type (bytes_list for string, float_list for float,
// int64_list for int64); a mismatch, a wrong value count or bytes that are no Example fail
// the step naming the example and the key.
// ParseSingleExample (tf.parse_single_example) is the same parse of one scalar record, its
// keys given as attrs: dense tensors without the batch dimension, sparse indices [n, 1] and
// dense shape [longest].
#include "ops/MathOpsInternal.h"

#include "clab/core/TensorSize.h"
#include "clab/graph/AttrValues.h"
#include "tensorflow/example.pb.h"

#include <absl/strings/str_cat.h>

namespace clab {
namespace {

using math_internal::KernelInvalidArgument;

struct ParseExampleAttrs {
  // ParseSingleExample: one scalar record, the keys in attrs, no batch dimension out.
  bool single = false;
  std::vector<std::string> sparse_keys, dense_keys;
  int64_t num_sparse = 0, num_dense = 0;
  std::vector<DataType> sparse_types, dense_types;
  std::vector<PartialShape> dense_shapes;
  // Per dense key: the elements of one row (all of dense_shape after its first dimension),
  // counted with overflow checks when the node is read.
  std::vector<int64_t> dense_row_elements;
};

std::vector<PartialShape> ShapeListAttr(const tensorflow::NodeDef& node, const std::string& name) {
  std::vector<PartialShape> shapes;
  auto found = node.attr().find(name);
  if (found == node.attr().end()) return shapes;
  for (const auto& proto : found->second.list().shape()) shapes.push_back(PartialShape::FromProto(proto));
  return shapes;
}

Status ReadParseExampleAttrs(const tensorflow::NodeDef& node, ParseExampleAttrs* attrs) {
  attrs->single = node.op() == "ParseSingleExample";
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "sparse_types", &attrs->sparse_types));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "Tdense", &attrs->dense_types));
  if (attrs->single) {
    CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "num_sparse", &attrs->num_sparse));
    CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "sparse_keys", &attrs->sparse_keys));
    CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "dense_keys", &attrs->dense_keys));
    attrs->num_dense = static_cast<int64_t>(attrs->dense_keys.size());
    if (static_cast<int64_t>(attrs->sparse_keys.size()) != attrs->num_sparse)
      return errors::InvalidArgument("Node '", node.name(), "' (op ParseSingleExample): sparse_keys has ",
                                     attrs->sparse_keys.size(), " entries, num_sparse is ", attrs->num_sparse);
  } else {
    CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "Nsparse", &attrs->num_sparse));
    CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "Ndense", &attrs->num_dense));
  }
  attrs->dense_shapes = ShapeListAttr(node, "dense_shapes");
  if (static_cast<int64_t>(attrs->sparse_types.size()) != attrs->num_sparse)
    return errors::InvalidArgument("Node '", node.name(), "' (op ", node.op(), "): sparse_types has ",
                                   attrs->sparse_types.size(), " entries, Nsparse is ", attrs->num_sparse);
  if (static_cast<int64_t>(attrs->dense_types.size()) != attrs->num_dense ||
      static_cast<int64_t>(attrs->dense_shapes.size()) != attrs->num_dense)
    return errors::InvalidArgument("Node '", node.name(), "' (op ", node.op(), "): Tdense has ",
                                   attrs->dense_types.size(), " entries and dense_shapes ", attrs->dense_shapes.size(),
                                   ", Ndense is ", attrs->num_dense);
  for (size_t j = 0; j < attrs->dense_shapes.size(); ++j) {
    const PartialShape& shape = attrs->dense_shapes[j];
    if (!shape.known_rank())
      return errors::InvalidArgument("Node '", node.name(), "' (op ", node.op(), "): dense_shapes[", j,
                                     "] must have a known rank");
    for (int d = 1; d < shape.rank(); ++d)
      if (shape.dim(d) < 0)
        return errors::InvalidArgument("Node '", node.name(), "' (op ", node.op(), "): dense_shapes[", j,
                                       "] may be unknown only in its first dimension, got ", shape.DebugString());
    std::vector<int64_t> row_dims;
    for (int d = 1; d < shape.rank(); ++d) row_dims.push_back(shape.dim(d));
    StatusOr<int64_t> row = TensorSize::NumElements(row_dims);
    if (!row.ok())
      return errors::InvalidArgument("Node '", node.name(), "' (op ", node.op(), "): dense_shapes[", j,
                                     "]: ", row.status().message());
    attrs->dense_row_elements.push_back(*row);
  }
  return OkStatus();
}

const char* ListName(DataType dtype) {
  return dtype == DT_FLOAT ? "float_list" : dtype == DT_INT64 ? "int64_list" : "bytes_list";
}

// How many values the feature holds, and whether its list is of `dtype`'s kind (a feature
// with no list set holds none of any kind).
bool FeatureCount(const tensorflow::Feature& feature, DataType dtype, int64_t* count) {
  switch (feature.kind_case()) {
    case tensorflow::Feature::KIND_NOT_SET: *count = 0; return true;
    case tensorflow::Feature::kFloatList: *count = feature.float_list().value_size(); return dtype == DT_FLOAT;
    case tensorflow::Feature::kInt64List: *count = feature.int64_list().value_size(); return dtype == DT_INT64;
    case tensorflow::Feature::kBytesList: *count = feature.bytes_list().value_size(); return dtype == DT_STRING;
  }
  return false;
}

// Copies the feature's values into out[at, at + count).
void CopyFeature(const tensorflow::Feature& feature, Tensor* out, int64_t at) {
  switch (out->dtype()) {
    case DT_FLOAT:
      for (int k = 0; k < feature.float_list().value_size(); ++k)
        out->data<float>()[at + k] = feature.float_list().value(k);
      break;
    case DT_INT64:
      for (int k = 0; k < feature.int64_list().value_size(); ++k)
        out->data<int64_t>()[at + k] = feature.int64_list().value(k);
      break;
    default:
      for (int k = 0; k < feature.bytes_list().value_size(); ++k)
        out->data<std::string>()[at + k] = feature.bytes_list().value(k);
  }
}

// out[at, at + count) = the default's elements, repeated when it is a scalar pad value.
void CopyDefault(const Tensor& fill, Tensor* out, int64_t at, int64_t count) {
  if (fill.NumElements() == 0) return;  // zeros (empty strings) are already there
  for (int64_t k = 0; k < count; ++k) {
    const int64_t from = fill.NumElements() == 1 ? 0 : k;
    switch (out->dtype()) {
      case DT_FLOAT: out->data<float>()[at + k] = fill.data<float>()[from]; break;
      case DT_INT64: out->data<int64_t>()[at + k] = fill.data<int64_t>()[from]; break;
      default: out->data<std::string>()[at + k] = fill.data<std::string>()[from];
    }
  }
}

class ParseExampleKernel : public OpKernel {
 public:
  explicit ParseExampleKernel(ParseExampleAttrs attrs) : attrs_(std::move(attrs)) {}

  void Compute(OpKernelContext* ctx) override {
    const char* op = attrs_.single ? "ParseSingleExample" : "ParseExample";
    const Tensor& serialized = ctx->input(0);
    // ParseSingleExample has no names input; its keys are attrs.
    const Tensor no_names(DT_STRING, TensorShape({0}));
    const Tensor& names = attrs_.single ? no_names : ctx->input(1);
    if (serialized.shape().rank() != (attrs_.single ? 0 : 1)) {
      ctx->SetStatus(KernelInvalidArgument(ctx, op, ": serialized must be ",
                                           attrs_.single ? "a string scalar" : "a vector of strings", ", got shape ",
                                           serialized.shape().DebugString()));
      return;
    }
    const int64_t batch = serialized.NumElements();
    if (names.NumElements() != 0 && names.NumElements() != batch) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "ParseExample: names has ", names.NumElements(),
                                           " entries; expected none or one per serialized example (", batch, ")"));
      return;
    }
    std::vector<tensorflow::Example> examples(static_cast<size_t>(batch));
    for (int64_t i = 0; i < batch; ++i) {
      const std::string& bytes = serialized.data<std::string>()[i];
      if (!examples[static_cast<size_t>(i)].ParseFromString(bytes)) {
        ctx->SetStatus(KernelInvalidArgument(ctx, op, ": ", Where(names, i), " could not be parsed as a ",
                                             "tf.Example (", bytes.size(), " bytes)"));
        return;
      }
    }
    const int first_dense_key = attrs_.single ? 1 : 2 + static_cast<int>(attrs_.num_sparse);
    const int first_default = attrs_.single ? 1 : first_dense_key + static_cast<int>(attrs_.num_dense);
    for (int64_t j = 0; j < attrs_.num_dense; ++j) {
      const std::string key = attrs_.single ? attrs_.dense_keys[static_cast<size_t>(j)]
                                            : KeyOf(ctx->input(first_dense_key + static_cast<int>(j)));
      const Tensor& fill = ctx->input(first_default + static_cast<int>(j));
      if (!ParseDense(ctx, examples, names, key, j, fill)) return;
    }
    for (int64_t k = 0; k < attrs_.num_sparse; ++k) {
      const std::string key =
          attrs_.single ? attrs_.sparse_keys[static_cast<size_t>(k)] : KeyOf(ctx->input(2 + static_cast<int>(k)));
      if (!ParseSparse(ctx, examples, names, key, k)) return;
    }
  }

 private:
  static std::string KeyOf(const Tensor& key) { return key.NumElements() == 1 ? key.data<std::string>()[0] : ""; }

  static std::string Where(const Tensor& names, int64_t i) {
    const std::string name = names.NumElements() > i ? names.data<std::string>()[i] : std::string();
    return absl::StrCat("example ", i, name.empty() ? "" : absl::StrCat(" ('", name, "')"));
  }

  bool ParseDense(OpKernelContext* ctx, const std::vector<tensorflow::Example>& examples, const Tensor& names,
                  const std::string& key, int64_t j, const Tensor& fill) {
    const DataType dtype = attrs_.dense_types[static_cast<size_t>(j)];
    const PartialShape& shape = attrs_.dense_shapes[static_cast<size_t>(j)];
    const bool variable = shape.rank() >= 1 && shape.dim(0) < 0;
    const int64_t row = attrs_.dense_row_elements[static_cast<size_t>(j)];
    int64_t fixed = -1;
    if (!variable && __builtin_mul_overflow(shape.rank() >= 1 ? shape.dim(0) : 1, row, &fixed)) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "ParseExample: dense shape ", shape.DebugString(), " of key '", key,
                                           "' has too many elements"));
      return false;
    }
    if (fill.dtype() != dtype) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "ParseExample: the default of key '", key, "' is ",
                                           DataTypeName(fill.dtype()), ", Tdense says ", DataTypeName(dtype)));
      return false;
    }
    if (!variable && fill.NumElements() != 0 && fill.NumElements() != fixed) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "ParseExample: the default of key '", key, "' has ", fill.NumElements(),
                                           " elements; dense shape ", shape.DebugString(), " needs ", fixed));
      return false;
    }
    if (variable && fill.NumElements() > 1) {
      ctx->SetStatus(KernelInvalidArgument(ctx, "ParseExample: the padding value of key '", key,
                                           "' (a dense shape with an unknown first dimension) must be a scalar, got ",
                                           fill.NumElements(), " elements"));
      return false;
    }
    const int64_t batch = static_cast<int64_t>(examples.size());
    std::vector<int64_t> counts(examples.size(), -1);  // -1: the example lacks the key
    int64_t rows = variable ? 0 : (shape.rank() >= 1 ? shape.dim(0) : 1);
    for (int64_t i = 0; i < batch; ++i) {
      const auto& features = examples[static_cast<size_t>(i)].features().feature();
      auto found = features.find(key);
      if (found == features.end()) {
        if (!variable && fill.NumElements() == 0) {
          ctx->SetStatus(KernelInvalidArgument(ctx, "ParseExample: ", Where(names, i), ", feature '", key,
                                               "' (data type: ", DataTypeName(dtype),
                                               ") is required but could not be found"));
          return false;
        }
        continue;
      }
      int64_t count = 0;
      if (!FeatureCount(found->second, dtype, &count)) {
        ctx->SetStatus(KernelInvalidArgument(ctx, "ParseExample: ", Where(names, i), ", feature '", key,
                                             "': data types don't match: expected a ", ListName(dtype)));
        return false;
      }
      // A row of no elements (a 0 in dense_shape) holds no values at all.
      const bool fits = !variable ? count == fixed : row == 0 ? count == 0 : count % row == 0;
      if (!fits) {
        ctx->SetStatus(KernelInvalidArgument(ctx, "ParseExample: ", Where(names, i), ", feature '", key, "' has ",
                                             count, " values; dense shape ", shape.DebugString(), " needs ",
                                             variable ? absl::StrCat("a multiple of ", row) : absl::StrCat(fixed)));
        return false;
      }
      counts[static_cast<size_t>(i)] = count;
      if (variable && row > 0) rows = std::max(rows, count / row);
    }
    std::vector<int64_t> dims = {batch};
    if (shape.rank() >= 1) dims.push_back(rows);
    for (int d = 1; d < shape.rank(); ++d) dims.push_back(shape.dim(d));
    const int first_output = static_cast<int>(3 * attrs_.num_sparse + j);
    Tensor dense(dtype, TensorShape(dims));
    Tensor* out = &dense;
    const int64_t per_example = rows * row;
    for (int64_t i = 0; i < batch; ++i) {
      const int64_t count = counts[static_cast<size_t>(i)];
      if (count >= 0) CopyFeature(examples[static_cast<size_t>(i)].features().feature().at(key), out, i * per_example);
      const int64_t have = std::max<int64_t>(count, 0);
      CopyDefault(fill, out, i * per_example + have, per_example - have);
    }
    if (attrs_.single) {  // the one example's values, without the batch dimension
      auto unbatched = dense.Reshaped(TensorShape(std::vector<int64_t>(dims.begin() + 1, dims.end())));
      if (!unbatched.ok()) {
        ctx->SetStatus(unbatched.status());
        return false;
      }
      dense = std::move(unbatched).value();
    }
    ctx->set_output(first_output, std::move(dense));
    return true;
  }

  bool ParseSparse(OpKernelContext* ctx, const std::vector<tensorflow::Example>& examples, const Tensor& names,
                   const std::string& key, int64_t k) {
    const DataType dtype = attrs_.sparse_types[static_cast<size_t>(k)];
    const int64_t batch = static_cast<int64_t>(examples.size());
    std::vector<int64_t> counts(examples.size(), 0);
    int64_t total = 0, longest = 0;
    for (int64_t i = 0; i < batch; ++i) {
      const auto& features = examples[static_cast<size_t>(i)].features().feature();
      auto found = features.find(key);
      if (found == features.end()) continue;
      if (!FeatureCount(found->second, dtype, &counts[static_cast<size_t>(i)])) {
        ctx->SetStatus(KernelInvalidArgument(ctx, "ParseExample: ", Where(names, i), ", feature '", key,
                                             "': data types don't match: expected a ", ListName(dtype)));
        return false;
      }
      total += counts[static_cast<size_t>(i)];
      longest = std::max(longest, counts[static_cast<size_t>(i)]);
    }
    const int n = static_cast<int>(attrs_.num_sparse);
    // A single example's sparse tensors drop the batch: indices [n, 1], shape [longest].
    const int64_t rank = attrs_.single ? 1 : 2;
    Tensor* indices = ctx->allocate_output(static_cast<int>(k), DT_INT64, TensorShape({total, rank}));
    Tensor* values = ctx->allocate_output(n + static_cast<int>(k), dtype, TensorShape({total}));
    Tensor* dense_shape = ctx->allocate_output(2 * n + static_cast<int>(k), DT_INT64, TensorShape({rank}));
    if (indices == nullptr || values == nullptr || dense_shape == nullptr) return false;
    int64_t at = 0;
    for (int64_t i = 0; i < batch; ++i) {
      const int64_t count = counts[static_cast<size_t>(i)];
      if (count == 0) continue;
      CopyFeature(examples[static_cast<size_t>(i)].features().feature().at(key), values, at);
      for (int64_t p = 0; p < count; ++p) {
        if (rank == 2) indices->data<int64_t>()[2 * (at + p)] = i;
        indices->data<int64_t>()[rank * (at + p) + rank - 1] = p;
      }
      at += count;
    }
    if (rank == 2) dense_shape->data<int64_t>()[0] = batch;
    dense_shape->data<int64_t>()[rank - 1] = longest;
    return true;
  }

  const ParseExampleAttrs attrs_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeParseExampleKernel(OpKernelConstruction& construction) {
  ParseExampleAttrs attrs;
  CLAB_RETURN_IF_ERROR(ReadParseExampleAttrs(construction.node(), &attrs));
  return std::unique_ptr<OpKernel>(new ParseExampleKernel(std::move(attrs)));
}

Status ParseExampleShape(ShapeContext& ctx) {
  ParseExampleAttrs attrs;
  Status read = ReadParseExampleAttrs(ctx.node(), &attrs);
  if (!read.ok()) return ctx.MakeError(std::string(read.message()));
  const PartialShape& serialized = ctx.input_shape(0);
  const int rank = attrs.single ? 0 : 1;
  if (serialized.known_rank() && serialized.rank() != rank)
    return ctx.MakeError(
        absl::StrCat("serialized must be ", attrs.single ? "a scalar" : "a vector", ", got rank ", serialized.rank()));
  const int64_t batch = serialized.known_rank() && !attrs.single ? serialized.dim(0) : -1;
  const int n = static_cast<int>(attrs.num_sparse);
  for (int k = 0; k < n; ++k) {
    ctx.set_output(k, PartialShape({-1, rank + 1}));
    ctx.set_output(n + k, PartialShape({-1}));
    ctx.set_output(2 * n + k, PartialShape({rank + 1}));
  }
  for (int64_t j = 0; j < attrs.num_dense; ++j) {
    std::vector<int64_t> dims;
    if (!attrs.single) dims.push_back(batch);
    const PartialShape& shape = attrs.dense_shapes[static_cast<size_t>(j)];
    dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
    ctx.set_output(3 * n + static_cast<int>(j), PartialShape(dims));
  }
  return OkStatus();
}

}  // namespace

void RegisterParseExampleOps(OpRegistry& registry) {
  registry.Register("ParseExample")
      .Input("serialized: string")
      .Input("names: string")
      .Input("sparse_keys: Nsparse * string")
      .Input("dense_keys: Ndense * string")
      .Input("dense_defaults: Tdense")
      .Output("sparse_indices: Nsparse * int64")
      .Output("sparse_values: sparse_types")
      .Output("sparse_shapes: Nsparse * int64")
      .Output("dense_values: Tdense")
      .Attr("Nsparse: int >= 0")
      .Attr("Ndense: int >= 0")
      .Attr("sparse_types: list({float, int64, string}) >= 0")
      .Attr("Tdense: list({float, int64, string}) >= 0")
      .Attr("dense_shapes: list(shape) >= 0")
      .SetShapeFn(ParseExampleShape)
      .Kernel("CPU", MakeParseExampleKernel)
      .Summary("Serialized tf.Example records as dense tensors and sparse (indices, values, shape) triples.")
      .Group("io");
  registry.Register("ParseSingleExample")
      .Input("serialized: string")
      .Input("dense_defaults: Tdense")
      .Output("sparse_indices: num_sparse * int64")
      .Output("sparse_values: sparse_types")
      .Output("sparse_shapes: num_sparse * int64")
      .Output("dense_values: Tdense")
      .Attr("num_sparse: int >= 0")
      .Attr("sparse_keys: list(string) >= 0")
      .Attr("dense_keys: list(string) >= 0")
      .Attr("sparse_types: list({float, int64, string}) >= 0")
      .Attr("Tdense: list({float, int64, string}) >= 0")
      .Attr("dense_shapes: list(shape) >= 0")
      .SetShapeFn(ParseExampleShape)
      .Kernel("CPU", MakeParseExampleKernel)
      .Summary("One serialized tf.Example as dense tensors and sparse (indices, values, shape) triples, unbatched.")
      .Group("io");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kParseExampleOpFamily("parse example", RegisterParseExampleOps);

}  // namespace clab
