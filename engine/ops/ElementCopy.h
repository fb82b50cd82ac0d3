// Helpers of the kernels that move elements of any type by index (join, slice, pad, select):
// copying runs of elements (strings by value), index tensors, products of dimensions.
#pragma once

#include "clab/core/Tensor.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace clab::array_internal {

// Copies n elements of any dtype (strings by value) from src at src_at to dst at dst_at.
inline void CopyElements(const Tensor& src, int64_t src_at, Tensor* dst, int64_t dst_at, int64_t n) {
  if (n <= 0) return;
  if (src.dtype() == DT_STRING || src.dtype() == tensorflow::DT_RESOURCE) {
    std::copy(src.data<std::string>() + src_at, src.data<std::string>() + src_at + n,
              dst->data<std::string>() + dst_at);
    return;
  }
  const size_t size = DataTypeSize(src.dtype());
  std::memcpy(static_cast<char*>(dst->raw_data()) + static_cast<size_t>(dst_at) * size,
              static_cast<const char*>(src.raw_data()) + static_cast<size_t>(src_at) * size,
              static_cast<size_t>(n) * size);
}

// An int32 or int64 tensor of `shape` holding `values`.
inline Tensor IndexTensor(DataType dtype, const std::vector<int64_t>& values, const TensorShape& shape) {
  Tensor t(dtype, shape);
  for (size_t k = 0; k < values.size(); ++k) {
    if (dtype == DT_INT64) {
      t.data<int64_t>()[k] = values[k];
    } else {
      t.data<int32_t>()[k] = static_cast<int32_t>(values[k]);
    }
  }
  return t;
}

// The product of dims [begin, end).
inline int64_t DimProduct(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t product = 1;
  for (size_t i = begin; i < end && i < dims.size(); ++i) product *= dims[i];
  return product;
}

}  // namespace clab::array_internal
