#include "clab/core/Allocator.h"

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
    const size_t rounded = ((bytes == 0 ? 1 : bytes) + kAlignment - 1) / kAlignment * kAlignment;
    return std::aligned_alloc(kAlignment, rounded);
  }
  void Deallocate(void* ptr, size_t) override { std::free(ptr); }
  bool OnHost() const override { return true; }
};

}  // namespace

Allocator* CpuAllocator() {
  static HostAllocator* allocator = new HostAllocator;
  return allocator;
}

}  // namespace clab
