// The element and byte counts of a tensor, computed with overflow checks. Every shape that
// comes from outside the process (a request, a file, a kernel's input, a flag) goes through
// here before memory is reserved for it, so that a count that wraps never reaches an
// allocation, a memcpy or a loop bound.
#pragma once

#include "clab/core/DataType.h"
#include "clab/core/Status.h"

#include <cstdint>
#include <vector>

namespace clab {

class TensorSize {
 public:
  // The number of elements of `dims`; INVALID_ARGUMENT naming the shape when a dimension is
  // negative or the product does not fit in int64.
  static StatusOr<int64_t> NumElements(const std::vector<int64_t>& dims);
  // Elements and bytes of a `dtype` tensor of shape `dims` (strings count their in-memory
  // objects); INVALID_ARGUMENT naming the shape and dtype when a count overflows.
  static StatusOr<TensorSize> Of(DataType dtype, const std::vector<int64_t>& dims);
  // Of(), then RESOURCE_EXHAUSTED when the bytes exceed MaxTensorBytes(): the check made
  // before every allocation of a tensor whose shape came from outside.
  static StatusOr<TensorSize> ForAllocation(DataType dtype, const std::vector<int64_t>& dims);

  // The largest tensor this process allocates (the task programs' --max_tensor_bytes).
  // The default is half of the machine's physical memory.
  static uint64_t MaxTensorBytes();
  // 0 restores the default.
  static void SetMaxTensorBytes(uint64_t bytes);
  static uint64_t DefaultMaxTensorBytes();

  int64_t elements = 0;
  uint64_t bytes = 0;
};

}  // namespace clab
