// Memory for tensor buffers. The CPU allocator hands out 64-byte aligned host memory; a GPU
// device supplies its own allocator for device memory.
#pragma once

#include <cstddef>
#include <string>

namespace clab {

class Allocator {
 public:
  static constexpr size_t kAlignment = 64;
  virtual ~Allocator() = default;
  virtual std::string Name() const = 0;
  // Returns nullptr when the memory cannot be had.
  virtual void* Allocate(size_t bytes) = 0;
  virtual void Deallocate(void* ptr, size_t bytes) = 0;
  // True when the CPU may read and write the memory directly.
  virtual bool OnHost() const = 0;
};

// The process-wide host allocator.
Allocator* CpuAllocator();

}  // namespace clab
