#include "distributed/WorkerInterface.h"

#include <vector>

namespace clab {

int CallCancellation::Register(std::function<void()> cancel) {
  {
    MutexLock lock(mu_);
    if (!cancelled_) {
      const int id = next_id_++;
      callbacks_.emplace(id, std::move(cancel));
      return id;
    }
  }
  // Too late to wait for a Cancel that already happened: the caller must stop now.
  cancel();
  return -1;
}

void CallCancellation::Deregister(int id) {
  if (id < 0) return;
  MutexLock lock(mu_);
  callbacks_.erase(id);
}

void CallCancellation::Cancel() {
  std::map<int, std::function<void()>> callbacks;
  {
    MutexLock lock(mu_);
    if (cancelled_) return;
    cancelled_ = true;
    callbacks.swap(callbacks_);
  }
  // Outside the lock: a callback may complete the call it cancels, and that completion
  // deregisters itself.
  for (auto& [id, cancel] : callbacks) cancel();
}

bool CallCancellation::cancelled() const {
  MutexLock lock(mu_);
  return cancelled_;
}

}  // namespace clab
