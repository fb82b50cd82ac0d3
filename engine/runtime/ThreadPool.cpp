#define EIGEN_USE_THREADS

#include "clab/runtime/ThreadPool.h"

#include <unsupported/Eigen/CXX11/Tensor>
#include <unsupported/Eigen/CXX11/ThreadPool>

#include <algorithm>
#include <thread>

namespace clab {

// Two Eigen pools of the same size: ops are scheduled on the first, and kernels split
// their work over the second through the Eigen device. Eigen's parallelFor blocks the
// calling thread until its blocks finish; if those blocks queued behind ops that are
// themselves blocked in parallelFor on the same pool, every thread would wait for work
// that no thread is free to run. Keeping intra-op work on its own pool rules that out.
// Idle threads sleep at once instead of spinning for work: a ps and its workers often
// share a few cores, and a spinning pool takes them from the threads that move tensors.
struct ThreadPool::Impl {
  explicit Impl(int num_threads)
      : inter_op(num_threads, false), intra_op(num_threads, false), eigen_device(&intra_op, num_threads) {}

  Eigen::ThreadPool inter_op;
  Eigen::ThreadPool intra_op;
  Eigen::ThreadPoolDevice eigen_device;
};

ThreadPool::ThreadPool(int num_threads) : impl_(std::make_unique<Impl>(std::max(1, num_threads))) {}

ThreadPool::~ThreadPool() = default;

ThreadPool* ThreadPool::Default() {
  // Never destroyed: threads of a static pool would be joined during static destruction,
  // after objects their pending work may still use are gone.
  static ThreadPool* const pool = [] {
    const int hardware = static_cast<int>(std::thread::hardware_concurrency());
    // At least two, so that one long op never serialises independent ones on a small box.
    return new ThreadPool(std::max(2, hardware));
  }();
  return pool;
}

int ThreadPool::num_threads() const { return impl_->inter_op.NumThreads(); }

void ThreadPool::Schedule(std::function<void()> fn) { impl_->inter_op.Schedule(std::move(fn)); }

void ThreadPool::ParallelFor(int64_t total, int64_t cost_per_unit, const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  if (total == 1) {
    fn(0, 1);
    return;
  }
  const Eigen::TensorOpCost cost(0, 0, static_cast<double>(std::max<int64_t>(cost_per_unit, 1)));
  impl_->eigen_device.parallelFor(static_cast<Eigen::Index>(total), cost, [&fn](Eigen::Index begin, Eigen::Index end) {
    fn(static_cast<int64_t>(begin), static_cast<int64_t>(end));
  });
}

const Eigen::ThreadPoolDevice* ThreadPool::eigen_device() const { return &impl_->eigen_device; }

}  // namespace clab
