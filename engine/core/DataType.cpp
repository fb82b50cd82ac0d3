#include "clab/core/DataType.h"

#include <absl/strings/ascii.h>
#include <absl/strings/match.h>

namespace clab {

size_t DataTypeSize(DataType dtype) {
  switch (BaseType(dtype)) {
    case tensorflow::DT_FLOAT: return sizeof(float);
    case tensorflow::DT_DOUBLE: return sizeof(double);
    case tensorflow::DT_INT32: return sizeof(int32_t);
    case tensorflow::DT_INT64: return sizeof(int64_t);
    case tensorflow::DT_BOOL: return sizeof(bool);
    case tensorflow::DT_UINT8: return sizeof(uint8_t);
    case tensorflow::DT_INT8: return 1;
    case tensorflow::DT_INT16:
    case tensorflow::DT_UINT16:
    case tensorflow::DT_HALF:
    case tensorflow::DT_BFLOAT16: return 2;
    case tensorflow::DT_UINT32: return 4;
    case tensorflow::DT_UINT64: return 8;
    case tensorflow::DT_COMPLEX64: return 8;
    case tensorflow::DT_COMPLEX128: return 16;
    default: return 0;
  }
}

std::string DataTypeName(DataType dtype) {
  if (dtype == tensorflow::DT_INVALID) return "invalid";
  // A number outside the enum (a corrupt or hostile proto) is named as such before the ref
  // check, which would otherwise recurse once per 100 of its value.
  if (!tensorflow::DataType_IsValid(dtype)) return StrCat("unknown dtype ", static_cast<int>(dtype));
  if (IsRefType(dtype)) return DataTypeName(BaseType(dtype)) + "_ref";
  // "DT_FLOAT" -> "float"
  return absl::AsciiStrToLower(tensorflow::DataType_Name(dtype).substr(3));
}

StatusOr<DataType> DataTypeFromName(std::string_view name) {
  std::string lower = absl::AsciiStrToLower(absl::string_view(name.data(), name.size()));
  if (absl::StartsWith(lower, "dt_")) lower = lower.substr(3);
  bool ref = false;
  if (absl::EndsWith(lower, "_ref")) {
    ref = true;
    lower.resize(lower.size() - 4);
  }
  if (lower == "float32") lower = "float";
  if (lower == "float64") lower = "double";
  if (lower == "float16") lower = "half";
  tensorflow::DataType dtype;
  if (!tensorflow::DataType_Parse("DT_" + absl::AsciiStrToUpper(lower), &dtype) || dtype == tensorflow::DT_INVALID ||
      IsRefType(dtype)) {
    return errors::InvalidArgument("Unknown data type '", name,
                                   "' (expected float, double, int32, int64, bool, uint8 or string)");
  }
  return ref ? MakeRefType(dtype) : dtype;
}

bool IsRefType(DataType dtype) { return static_cast<int>(dtype) > 100; }

DataType BaseType(DataType dtype) {
  return IsRefType(dtype) ? static_cast<DataType>(static_cast<int>(dtype) - 100) : dtype;
}

DataType MakeRefType(DataType dtype) {
  return IsRefType(dtype) ? dtype : static_cast<DataType>(static_cast<int>(dtype) + 100);
}

bool IsSupportedDataType(DataType dtype) {
  switch (BaseType(dtype)) {
    case tensorflow::DT_FLOAT:
    case tensorflow::DT_DOUBLE:
    case tensorflow::DT_INT32:
    case tensorflow::DT_INT64:
    case tensorflow::DT_BOOL:
    case tensorflow::DT_UINT8:
    case tensorflow::DT_STRING:
    case tensorflow::DT_RESOURCE: return true;
    default: return false;
  }
}

bool IsFloatingType(DataType dtype) {
  const DataType base = BaseType(dtype);
  return base == tensorflow::DT_FLOAT || base == tensorflow::DT_DOUBLE || base == tensorflow::DT_HALF ||
         base == tensorflow::DT_BFLOAT16;
}

bool IsIntegerType(DataType dtype) {
  switch (BaseType(dtype)) {
    case tensorflow::DT_INT8:
    case tensorflow::DT_INT16:
    case tensorflow::DT_INT32:
    case tensorflow::DT_INT64:
    case tensorflow::DT_UINT8:
    case tensorflow::DT_UINT16:
    case tensorflow::DT_UINT32:
    case tensorflow::DT_UINT64: return true;
    default: return false;
  }
}

}  // namespace clab
