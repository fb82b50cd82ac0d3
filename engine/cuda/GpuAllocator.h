// Device memory for tensors on one GPU, with a cache of freed blocks: cudaMalloc and
// cudaFree synchronise the whole device and cost tens of microseconds, and a training step
// frees and re-allocates the same sizes every time. Freed blocks are reused only by work on
// the GPU's single stream, whose ordering makes reuse safe without events.
#pragma once

#include "clab/core/Allocator.h"

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace clab::gpu {

class GpuAllocator : public Allocator {
 public:
  explicit GpuAllocator(int cuda_ordinal);
  // Cached blocks are returned to CUDA; live blocks are not touched.
  ~GpuAllocator() override;
  GpuAllocator(const GpuAllocator&) = delete;
  GpuAllocator& operator=(const GpuAllocator&) = delete;

  std::string Name() const override;
  void* Allocate(size_t bytes) override;
  void Deallocate(void* ptr, size_t bytes) override;
  bool OnHost() const override { return false; }

  size_t BytesInUse() const;
  size_t BytesCached() const;
  // Gives every cached block back to CUDA (also done when cudaMalloc runs out).
  void ReleaseCache();

 private:
  // The size class a request is served from: small requests share 512-byte steps, large
  // ones 2 MiB steps, so a block freed by one step fits the same request of the next.
  static size_t RoundUp(size_t bytes);
  void ReleaseCacheLocked();

  int ordinal_;
  mutable std::mutex mu_;
  // size -> blocks of that size, most recently freed last: reusing it first keeps the
  // working set small and hot in the GPU's L2.
  std::map<size_t, std::vector<void*>> free_blocks_;
  std::unordered_map<void*, size_t> live_;  // block -> size
  size_t bytes_in_use_ = 0;
  size_t bytes_cached_ = 0;
};

}  // namespace clab::gpu
