#include "clab/core/MemoryBudget.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <string>

#include <unistd.h>

namespace clab {
namespace {

std::atomic<uint64_t> limit_set{0};  // 0: the default
std::atomic<uint64_t> in_use{0};
std::atomic<uint64_t> peak{0};

uint64_t PhysicalMemory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return uint64_t{8} << 30;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

// cgroup v2's memory.max for this process ("max" or unreadable: no cgroup limit).
uint64_t CgroupLimit() {
  std::ifstream in("/sys/fs/cgroup/memory.max");
  std::string text;
  if (!(in >> text) || text.empty() || text == "max") return UINT64_MAX;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || value > UINT64_MAX / 10) return UINT64_MAX;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value == 0 ? UINT64_MAX : value;
}

}  // namespace

bool MemoryBudget::Reserve(uint64_t bytes) {
  const uint64_t limit = Limit();
  uint64_t now = in_use.load(std::memory_order_relaxed);
  do {
    if (bytes > limit || now > limit - bytes) return false;
  } while (!in_use.compare_exchange_weak(now, now + bytes, std::memory_order_relaxed));
  const uint64_t after = now + bytes;
  uint64_t seen = peak.load(std::memory_order_relaxed);
  while (after > seen && !peak.compare_exchange_weak(seen, after, std::memory_order_relaxed)) {
  }
  return true;
}

void MemoryBudget::Release(uint64_t bytes) { in_use.fetch_sub(bytes, std::memory_order_relaxed); }

uint64_t MemoryBudget::InUse() { return in_use.load(std::memory_order_relaxed); }

uint64_t MemoryBudget::Peak() { return peak.load(std::memory_order_relaxed); }

uint64_t MemoryBudget::DefaultLimit() {
  const uint64_t usable = std::min(PhysicalMemory(), CgroupLimit());
  return usable / 4 * 3;
}

uint64_t MemoryBudget::Limit() {
  const uint64_t set = limit_set.load(std::memory_order_relaxed);
  if (set != 0) return set;
  static const uint64_t fallback = DefaultLimit();
  return fallback;
}

void MemoryBudget::SetLimit(uint64_t bytes) { limit_set.store(bytes, std::memory_order_relaxed); }

}  // namespace clab
