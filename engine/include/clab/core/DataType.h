// Element types. The enum is TensorFlow's DataType (from proto/tensorflow/types.proto), so
// graph files and tensors keep their numbers on the wire.
#pragma once

#include "clab/core/Status.h"
#include "tensorflow/types.pb.h"

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace clab {

using DataType = tensorflow::DataType;
using tensorflow::DT_BOOL;
using tensorflow::DT_DOUBLE;
using tensorflow::DT_FLOAT;
using tensorflow::DT_INT32;
using tensorflow::DT_INT64;
using tensorflow::DT_INVALID;
using tensorflow::DT_STRING;
using tensorflow::DT_UINT8;

// Bytes per element; 0 for DT_STRING and unsupported types.
size_t DataTypeSize(DataType dtype);
// TensorFlow's spelling: "float", "double", "int32", "int64", "bool", "string", "float_ref".
std::string DataTypeName(DataType dtype);
// Accepts TensorFlow's names and numpy-style aliases ("float32", "float64", "DT_FLOAT").
StatusOr<DataType> DataTypeFromName(std::string_view name);

bool IsRefType(DataType dtype);
DataType BaseType(DataType dtype);
DataType MakeRefType(DataType dtype);
// The types a Tensor can hold: float, double, int32, int64, bool, uint8, string.
bool IsSupportedDataType(DataType dtype);
bool IsFloatingType(DataType dtype);
bool IsIntegerType(DataType dtype);

template <typename T>
struct DataTypeOf;
#define CLAB_DATATYPE_OF(T, ENUM)                       \
  template <>                                           \
  struct DataTypeOf<T> {                                \
    static constexpr DataType value = tensorflow::ENUM; \
  };
CLAB_DATATYPE_OF(float, DT_FLOAT)
CLAB_DATATYPE_OF(double, DT_DOUBLE)
CLAB_DATATYPE_OF(int32_t, DT_INT32)
CLAB_DATATYPE_OF(int64_t, DT_INT64)
CLAB_DATATYPE_OF(bool, DT_BOOL)
CLAB_DATATYPE_OF(uint8_t, DT_UINT8)
CLAB_DATATYPE_OF(std::string, DT_STRING)
#undef CLAB_DATATYPE_OF

}  // namespace clab

// Dispatch on a runtime dtype: CLAB_CASE_REAL_TYPES(dtype, T, { body using T }, on_other).
// Real numeric types: float, double, int32, int64.
#define CLAB_SWITCH_REAL_TYPES(dtype, T, BODY, OTHER) \
  switch (dtype) {                                    \
    case ::tensorflow::DT_FLOAT: {                    \
      using T = float;                                \
      BODY;                                           \
      break;                                          \
    }                                                 \
    case ::tensorflow::DT_DOUBLE: {                   \
      using T = double;                               \
      BODY;                                           \
      break;                                          \
    }                                                 \
    case ::tensorflow::DT_INT32: {                    \
      using T = int32_t;                              \
      BODY;                                           \
      break;                                          \
    }                                                 \
    case ::tensorflow::DT_INT64: {                    \
      using T = int64_t;                              \
      BODY;                                           \
      break;                                          \
    }                                                 \
    default: {                                        \
      OTHER;                                          \
    }                                                 \
  }

// Every numeric type a Tensor holds, including bool and uint8 (not string).
#define CLAB_SWITCH_POD_TYPES(dtype, T, BODY, OTHER) \
  switch (dtype) {                                   \
    case ::tensorflow::DT_FLOAT: {                   \
      using T = float;                               \
      BODY;                                          \
      break;                                         \
    }                                                \
    case ::tensorflow::DT_DOUBLE: {                  \
      using T = double;                              \
      BODY;                                          \
      break;                                         \
    }                                                \
    case ::tensorflow::DT_INT32: {                   \
      using T = int32_t;                             \
      BODY;                                          \
      break;                                         \
    }                                                \
    case ::tensorflow::DT_INT64: {                   \
      using T = int64_t;                             \
      BODY;                                          \
      break;                                         \
    }                                                \
    case ::tensorflow::DT_BOOL: {                    \
      using T = bool;                                \
      BODY;                                          \
      break;                                         \
    }                                                \
    case ::tensorflow::DT_UINT8: {                   \
      using T = uint8_t;                             \
      BODY;                                          \
      break;                                         \
    }                                                \
    default: {                                       \
      OTHER;                                         \
    }                                                \
  }
