#include "formats/JsonTensorParser.h"

#include "clab/core/JsonNesting.h"
#include "clab/core/TensorAllocation.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace clab::tools {
namespace {

using nlohmann::json;

// The shape numpy gives nested lists: the lengths along the first elements, down to the
// first value (or empty list).
std::vector<int64_t> ShapeOf(const json& value) {
  std::vector<int64_t> dims;
  const json* current = &value;
  while (current->is_array()) {
    dims.push_back(static_cast<int64_t>(current->size()));
    if (current->empty()) break;
    current = &current->front();
  }
  return dims;
}

// Every list at one depth must have the same length, and values sit only at the last depth.
Status CheckRectangular(const json& value, const std::vector<int64_t>& dims, size_t depth) {
  if (depth == dims.size()) {
    if (value.is_array()) return errors::InvalidArgument("the nested lists are ragged: a list where a value belongs");
    return OkStatus();
  }
  if (!value.is_array() || static_cast<int64_t>(value.size()) != dims[depth])
    return errors::InvalidArgument("the nested lists are ragged: lengths differ at depth ", depth + 1);
  for (const json& element : value) CLAB_RETURN_IF_ERROR(CheckRectangular(element, dims, depth + 1));
  return OkStatus();
}

void CollectLeaves(const json& value, std::vector<const json*>* leaves) {
  if (!value.is_array()) {
    leaves->push_back(&value);
    return;
  }
  for (const json& element : value) CollectLeaves(element, leaves);
}

DataType InferType(const std::vector<const json*>& leaves) {
  DataType inferred = DT_INT32;  // also the type of an empty list
  for (const json* leaf : leaves) {
    if (leaf->is_boolean()) return DT_BOOL;
    if (leaf->is_string()) return DT_STRING;
    if (leaf->is_number_float()) inferred = DT_FLOAT;
  }
  return inferred;
}

template <typename Int>
Status ToInteger(const json& leaf, Int* out) {
  if (!leaf.is_number()) return errors::InvalidArgument("expected a number, got ", leaf.dump());
  if (leaf.is_number_float()) {
    const double value = leaf.get<double>();
    if (value != std::floor(value)) return errors::InvalidArgument(leaf.dump(), " is not a whole number");
  }
  const bool is_unsigned = leaf.is_number_unsigned();
  if (is_unsigned ? leaf.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<Int>::max())
                  : (leaf.get<double>() < static_cast<double>(std::numeric_limits<Int>::min()) ||
                     leaf.get<double>() > static_cast<double>(std::numeric_limits<Int>::max())))
    return errors::InvalidArgument(leaf.dump(), " is out of range for ", DataTypeName(DataTypeOf<Int>::value));
  *out = leaf.is_number_float() ? static_cast<Int>(leaf.get<double>()) : leaf.get<Int>();
  return OkStatus();
}

Status FillTensor(const std::vector<const json*>& leaves, Tensor* tensor) {
  const DataType dtype = tensor->dtype();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const json& leaf = *leaves[i];
    switch (dtype) {
      case DT_FLOAT:
      case DT_DOUBLE:
        if (!leaf.is_number()) return errors::InvalidArgument("expected a number, got ", leaf.dump());
        if (dtype == DT_FLOAT) tensor->data<float>()[i] = leaf.get<float>();
        else tensor->data<double>()[i] = leaf.get<double>();
        break;
      case DT_INT32: CLAB_RETURN_IF_ERROR(ToInteger(leaf, &tensor->data<int32_t>()[i])); break;
      case DT_INT64: CLAB_RETURN_IF_ERROR(ToInteger(leaf, &tensor->data<int64_t>()[i])); break;
      case DT_UINT8: CLAB_RETURN_IF_ERROR(ToInteger(leaf, &tensor->data<uint8_t>()[i])); break;
      case DT_BOOL:
        if (!leaf.is_boolean()) return errors::InvalidArgument("expected true or false, got ", leaf.dump());
        tensor->data<bool>()[i] = leaf.get<bool>();
        break;
      case DT_STRING:
        if (!leaf.is_string()) return errors::InvalidArgument("expected a string, got ", leaf.dump());
        tensor->data<std::string>()[i] = leaf.get<std::string>();
        break;
      default: return errors::InvalidArgument("values of type ", DataTypeName(dtype), " cannot be given as JSON");
    }
  }
  return OkStatus();
}

}  // namespace

StatusOr<Tensor> JsonTensorParser::Parse(absl::string_view json_text, DataType dtype) {
  // The nesting is bounded before the parser and the recursive walks below see the text.
  CLAB_RETURN_IF_ERROR(CheckJsonNesting(std::string_view(json_text.data(), json_text.size()), "the JSON value"));
  const json value = json::parse(std::string(json_text), /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return errors::InvalidArgument("'", json_text, "' is not JSON");
  if (value.is_object() || value.is_null())
    return errors::InvalidArgument("'", json_text, "' is not a value or a list of values");

  const std::vector<int64_t> dims = ShapeOf(value);
  if (Status status = CheckRectangular(value, dims, 0); !status.ok())
    return errors::InvalidArgument("'", json_text, "': ", status.message());
  std::vector<const json*> leaves;
  CollectLeaves(value, &leaves);
  for (const json* leaf : leaves)
    if (leaf->is_object() || leaf->is_null())
      return errors::InvalidArgument("'", json_text, "' holds ", leaf->dump(), ", not a value");

  if (dtype == DT_INVALID) dtype = InferType(leaves);
  dtype = BaseType(dtype);
  if (!IsSupportedDataType(dtype))
    return errors::InvalidArgument("values of type ", DataTypeName(dtype), " cannot be given as JSON");
  CLAB_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromDims(dims));
  CLAB_ASSIGN_OR_RETURN(Tensor tensor, AllocateTensor(dtype, shape));
  if (Status status = FillTensor(leaves, &tensor); !status.ok())
    return errors::InvalidArgument("'", json_text, "' as ", DataTypeName(dtype), ": ", status.message());
  return tensor;
}

}  // namespace clab::tools
