// How much host memory this process's tensors may hold at once (the task programs'
// --max_memory_bytes). The CPU allocator reserves every buffer here before it asks the
// system for it, so that a step whose tensors together would pass the limit fails with
// RESOURCE_EXHAUSTED instead of the kernel's OOM killer ending the task, and the task goes
// on serving other steps.
#pragma once

#include <cstdint>

namespace clab {

class MemoryBudget {
 public:
  // Takes `bytes` from the budget; false (and nothing taken) when that would pass the limit.
  static bool Reserve(uint64_t bytes);
  static void Release(uint64_t bytes);

  // Bytes held by live host tensors now, and the most held at once since the start.
  static uint64_t InUse();
  static uint64_t Peak();

  // The limit: set by SetLimit, else the default, three quarters of the memory this
  // process may use (the physical memory, or the cgroup's memory.max when that is lower).
  static uint64_t Limit();
  // 0 restores the default.
  static void SetLimit(uint64_t bytes);
  static uint64_t DefaultLimit();
};

}  // namespace clab
