// Tensors typed on the command line as JSON, the way numpy reads nested lists:
// "[[1, 2, 3, 4]]" is a 1x4 matrix, "3.5" a scalar, "[true, false]" a bool vector.
#pragma once

#include "clab/core/DataType.h"
#include "clab/core/Status.h"

#include <absl/strings/string_view.h>
#include "clab/core/Tensor.h"

namespace clab::tools {

class JsonTensorParser {
 public:
  // With `dtype` DT_INVALID the type follows TensorFlow's conversion of Python values:
  // integers -> int32, any fraction -> float, booleans -> bool, strings -> string.
  // Errors (INVALID_ARGUMENT) say what is wrong: not JSON, ragged lists, 1.5 for an int32,
  // a number out of the type's range.
  static StatusOr<Tensor> Parse(absl::string_view json_text, DataType dtype = DT_INVALID);
};

}  // namespace clab::tools
