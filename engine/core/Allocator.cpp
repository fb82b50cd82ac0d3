#include "clab/core/Allocator.h"

#include "clab/core/MemoryBudget.h"

#include <cstdlib>
#include <new>

namespace clab {
namespace {

class HostAllocator final : public Allocator {
 public:
  std::string Name() const override { return "cpu"; }
  void* Allocate(size_t bytes) override {
    // aligned_alloc wants a multiple of the alignment; zero-size tensors still get a
    // distinct pointer so that buffers can be told apart.
    // The budget counts what was asked for, so that Deallocate (given the same size)
    // returns exactly that.
    if (!MemoryBudget::Reserve(bytes)) return nullptr;
    const size_t rounded = ((bytes == 0 ? 1 : bytes) + kAlignment - 1) / kAlignment * kAlignment;
    void* memory = rounded < bytes ? nullptr : std::aligned_alloc(kAlignment, rounded);
    if (memory == nullptr) MemoryBudget::Release(bytes);
    return memory;
  }
  void Deallocate(void* ptr, size_t bytes) override {
    std::free(ptr);
    MemoryBudget::Release(bytes);
  }
  bool OnHost() const override { return true; }
};

}  // namespace

Allocator* CpuAllocator() {
  static HostAllocator* allocator = new HostAllocator;
  return allocator;
}

}  // namespace clab
