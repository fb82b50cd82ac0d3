#include "distributed/CallThreads.h"

#include <system_error>
#include <thread>

namespace clab {

Status CallThreads::Start(std::string_view what, std::function<void()> work) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (running_ >= max_running_)
      return errors::ResourceExhausted(what, ": ", running_,
                                       " calls already run on threads of their own in this task, the most it runs "
                                       "at once; try again when some have finished");
    ++running_;
  }
  try {
    std::thread([this, work = std::move(work)] {
      work();
      Finished();
    }).detach();
  } catch (const std::system_error& e) {
    Finished();
    return errors::ResourceExhausted(what, ": the system gave no thread for the call (", e.what(), ")");
  }
  return OkStatus();
}

void CallThreads::Finished() {
  std::lock_guard<std::mutex> lock(mu_);
  if (--running_ == 0) idle_.notify_all();
}

void CallThreads::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [this] { return running_ == 0; });
}

int CallThreads::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

}  // namespace clab
