#include "GpuAllocator.h"

#include <cuda_runtime_api.h>

#include <cstdio>

namespace clab::gpu {
namespace {

constexpr size_t kSmallStep = 512;
constexpr size_t kLargeStep = size_t{2} << 20;
constexpr size_t kLargeThreshold = size_t{1} << 20;

// Reusing a block at most this much larger than asked keeps waste bounded (25%).
bool FitsWithoutMuchWaste(size_t block, size_t wanted) { return block <= wanted + wanted / 4; }

}  // namespace

GpuAllocator::GpuAllocator(int cuda_ordinal) : ordinal_(cuda_ordinal) {}

GpuAllocator::~GpuAllocator() {
  std::lock_guard<std::mutex> lock(mu_);
  ReleaseCacheLocked();
}

std::string GpuAllocator::Name() const { return "gpu_" + std::to_string(ordinal_) + "_caching"; }

size_t GpuAllocator::RoundUp(size_t bytes) {
  if (bytes == 0) bytes = 1;  // an empty tensor still gets a unique, valid pointer
  const size_t step = bytes >= kLargeThreshold ? kLargeStep : kSmallStep;
  return (bytes + step - 1) / step * step;
}

void* GpuAllocator::Allocate(size_t bytes) {
  const size_t size = RoundUp(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = free_blocks_.lower_bound(size);
  if (it != free_blocks_.end() && FitsWithoutMuchWaste(it->first, size)) {
    const size_t block_size = it->first;
    void* block = it->second.back();
    it->second.pop_back();
    if (it->second.empty()) free_blocks_.erase(it);
    bytes_cached_ -= block_size;
    live_.emplace(block, block_size);
    bytes_in_use_ += block_size;
    return block;
  }

  // The CUDA runtime is private to this plugin (static), and every user of it sets the
  // device before its calls, so switching here without restoring is safe.
  cudaSetDevice(ordinal_);
  void* block = nullptr;
  cudaError_t error = cudaMalloc(&block, size);
  if (error == cudaErrorMemoryAllocation && !free_blocks_.empty()) {
    // The cache may hold the memory this request needs in blocks of other sizes.
    cudaGetLastError();
    ReleaseCacheLocked();
    error = cudaMalloc(&block, size);
  }
  if (error != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  live_.emplace(block, size);
  bytes_in_use_ += size;
  return block;
}

void GpuAllocator::Deallocate(void* ptr, size_t /*bytes*/) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(ptr);
  if (it == live_.end()) {
    std::fprintf(stderr, "clab_cuda: %s: ignoring a pointer it did not allocate\n", Name().c_str());
    return;
  }
  // Never cudaFree here: Deallocate runs when the last Tensor reference drops, possibly
  // while the stream still uses the block. Reuse is ordered by that same stream.
  free_blocks_[it->second].push_back(ptr);
  bytes_cached_ += it->second;
  bytes_in_use_ -= it->second;
  live_.erase(it);
}

size_t GpuAllocator::BytesInUse() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_in_use_;
}

size_t GpuAllocator::BytesCached() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_cached_;
}

void GpuAllocator::ReleaseCache() {
  std::lock_guard<std::mutex> lock(mu_);
  ReleaseCacheLocked();
}

void GpuAllocator::ReleaseCacheLocked() {
  if (free_blocks_.empty()) return;
  cudaSetDevice(ordinal_);
  // cudaFree waits for the device, so work still reading a cached block finishes first.
  for (const auto& [size, blocks] : free_blocks_)
    for (void* block : blocks) cudaFree(block);
  free_blocks_.clear();
  bytes_cached_ = 0;
}

}  // namespace clab::gpu
