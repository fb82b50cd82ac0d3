// Runs callbacks at deadlines on one background thread: how a step's RunOptions timeout
// cancels the partitions still running without a thread per step.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace clab {

class DeadlineTimer {
 public:
  using Clock = std::chrono::steady_clock;

  // The process's timer; its thread starts on first use.
  static DeadlineTimer* Default();

  DeadlineTimer();
  ~DeadlineTimer();
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;

  // Runs `fn` on the timer thread after `delay_ms`; the id cancels it.
  int64_t Schedule(int64_t delay_ms, std::function<void()> fn);
  // False when the callback already ran (or is running).
  bool Cancel(int64_t id);

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  int64_t next_id_ = 1;
  std::multimap<Clock::time_point, int64_t> by_time_;
  std::map<int64_t, std::pair<Clock::time_point, std::function<void()>>> by_id_;
  std::thread thread_;
};

}  // namespace clab
