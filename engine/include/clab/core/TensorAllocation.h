// Allocating a tensor whose size came from outside. The Tensor constructor checks every
// size with TensorSize::ForAllocation and throws TensorAllocationError (a std::bad_alloc
// carrying a status) when the byte count overflows, exceeds the task's limit or the
// allocator has no memory; kernels let it reach the executor, which fails the step with
// that status. Code that sizes a tensor from a request or a file calls AllocateTensor, which
// returns the failure as a status instead.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"

#include <new>
#include <string>

namespace clab {

class TensorAllocationError : public std::bad_alloc {
 public:
  explicit TensorAllocationError(Status status) : status_(std::move(status)), what_(status_.message()) {}
  const Status& status() const { return status_; }
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  Status status_;
  std::string what_;
};

// A zeroed tensor, or INVALID_ARGUMENT for a size that overflows, RESOURCE_EXHAUSTED over
// the limit or when the memory cannot be had.
StatusOr<Tensor> AllocateTensor(DataType dtype, const TensorShape& shape, Allocator* allocator = CpuAllocator());

}  // namespace clab
