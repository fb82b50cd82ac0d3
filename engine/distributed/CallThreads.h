// Threads of their own for calls that block (CreateSession waiting for tasks, a plan built
// while RegisterGraph calls run), so that gRPC's callback threads never wait on other calls.
// A client decides how many such calls run at once, so their number is capped: past the
// cap, or when the system has no thread to give, a call fails with RESOURCE_EXHAUSTED
// instead of taking the task down.
#pragma once

#include "clab/core/Status.h"

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string_view>

namespace clab {

class CallThreads {
 public:
  // How many calls may run on threads of their own at once, in a task's master.
  static constexpr int kDefaultMaxRunning = 1024;

  explicit CallThreads(int max_running = kDefaultMaxRunning) : max_running_(max_running) {}
  // Waits until every started call has finished.
  ~CallThreads() { WaitIdle(); }
  CallThreads(const CallThreads&) = delete;
  CallThreads& operator=(const CallThreads&) = delete;

  // Runs `work` on a detached thread of its own. Fails, naming `what`, when the cap is
  // reached or no thread can be started; `work` has then not run (and is dropped), so a
  // caller keeps what it must answer with outside it.
  Status Start(std::string_view what, std::function<void()> work);
  void WaitIdle();
  int running() const;

 private:
  void Finished();

  const int max_running_;
  mutable std::mutex mu_;
  std::condition_variable idle_;
  int running_ = 0;
};

}  // namespace clab
