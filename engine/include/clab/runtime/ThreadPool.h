// The process's worker threads: one Eigen non-blocking pool sized to the machine, used for
// scheduling ops (inter-op) and, through its Eigen device, inside kernels (intra-op).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

namespace Eigen {
struct ThreadPoolDevice;
}

namespace clab {

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Shared by every device and session of the process; sized to the hardware threads.
  static ThreadPool* Default();

  int num_threads() const;
  void Schedule(std::function<void()> fn);
  // Runs fn(begin, end) over [0, total) in blocks sized by `cost_per_unit` (in cycles).
  void ParallelFor(int64_t total, int64_t cost_per_unit, const std::function<void(int64_t, int64_t)>& fn);
  const Eigen::ThreadPoolDevice* eigen_device() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace clab
