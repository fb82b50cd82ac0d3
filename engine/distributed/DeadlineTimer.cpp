#include "distributed/DeadlineTimer.h"
#include "core/BoundedMillis.h"

#include <utility>

namespace clab {

DeadlineTimer* DeadlineTimer::Default() {
  // Never destroyed: callbacks may be scheduled from other static destructors' threads.
  static DeadlineTimer* const timer = new DeadlineTimer;
  return timer;
}

DeadlineTimer::DeadlineTimer() : thread_([this] { Loop(); }) {}

DeadlineTimer::~DeadlineTimer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

int64_t DeadlineTimer::Schedule(int64_t delay_ms, std::function<void()> fn) {
  const Clock::time_point when = Clock::now() + BoundedMillis(delay_ms);
  int64_t id;
  bool earliest;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = next_id_++;
    earliest = by_time_.empty() || when < by_time_.begin()->first;
    by_time_.emplace(when, id);
    by_id_.emplace(id, std::make_pair(when, std::move(fn)));
  }
  if (earliest) cv_.notify_all();
  return id;
}

bool DeadlineTimer::Cancel(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return false;
  auto [first, last] = by_time_.equal_range(it->second.first);
  for (auto t = first; t != last; ++t) {
    if (t->second == id) {
      by_time_.erase(t);
      break;
    }
  }
  by_id_.erase(it);
  return true;
}

void DeadlineTimer::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (by_time_.empty()) {
      cv_.wait(lock);
      continue;
    }
    const auto next = by_time_.begin();
    if (Clock::now() < next->first) {
      // A copy: while this thread waits, Cancel may erase the entry, and wait_until reads
      // its deadline again after every wake-up.
      const Clock::time_point deadline = next->first;
      cv_.wait_until(lock, deadline);
      continue;
    }
    const int64_t id = next->second;
    by_time_.erase(next);
    auto entry = by_id_.find(id);
    std::function<void()> fn = std::move(entry->second.second);
    by_id_.erase(entry);
    lock.unlock();
    fn();
    lock.lock();
  }
}

}  // namespace clab
