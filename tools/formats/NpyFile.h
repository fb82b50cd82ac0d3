// numpy's .npy files (format 1.0 and 2.0, C order, little-endian): the feeds of `clab run
// --feed name=file.npy` and values a test compares against numpy. Reads and writes
// float32/float64/int32/int64/bool/uint8 arrays; errors name the file and what is wrong.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"

#include <string>

namespace clab::tools {

class NpyFile {
 public:
  static StatusOr<Tensor> Read(const std::string& path);
  static Status Write(const std::string& path, const Tensor& tensor);
  // The array held by the bytes of a .npy file; `where` names them in errors.
  static StatusOr<Tensor> Parse(const std::string& bytes, const std::string& where);
};

}  // namespace clab::tools
