#include "clab/runtime/Rendezvous.h"

#include "clab/core/DeviceName.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <vector>

namespace clab {
namespace {

// Top-level tensors (no loops) live in frame 0, iteration 0.
constexpr char kRootFrameIter[] = "0:0";

// The absl here has its own string_view type; bridge explicitly.
absl::string_view AsAbsl(std::string_view text) { return {text.data(), text.size()}; }

Status InvalidKey(std::string_view key) {
  return errors::InvalidArgument("Invalid rendezvous key: ", AsAbsl(key),
                                 " (expected <send device>;<incarnation hex>;<recv device>;<tensor name>;0:0)");
}

bool IsFrameIter(absl::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  uint64_t ignored = 0;
  return parts.size() == 2 && absl::SimpleAtoi(parts[0], &ignored) && absl::SimpleAtoi(parts[1], &ignored);
}

}  // namespace

std::string RendezvousKey::ToString() const {
  char incarnation[17];
  std::snprintf(incarnation, sizeof incarnation, "%016llx", static_cast<unsigned long long>(send_incarnation));
  return absl::StrCat(send_device, ";", incarnation, ";", recv_device, ";", tensor_name, ";", kRootFrameIter);
}

StatusOr<RendezvousKey> RendezvousKey::Parse(std::string_view key) {
  std::vector<absl::string_view> parts = absl::StrSplit(AsAbsl(key), ';');
  if (parts.size() != 5) return InvalidKey(key);
  if (!DeviceName::ParseFull(std::string_view(parts[0].data(), parts[0].size())).ok() ||
      !DeviceName::ParseFull(std::string_view(parts[2].data(), parts[2].size())).ok())
    return InvalidKey(key);
  if (parts[1].empty() || parts[1].size() > 16 || parts[3].empty() || !IsFrameIter(parts[4])) return InvalidKey(key);
  RendezvousKey parsed;
  if (!absl::SimpleHexAtoi(parts[1], &parsed.send_incarnation)) return InvalidKey(key);
  parsed.send_device = std::string(parts[0]);
  parsed.recv_device = std::string(parts[2]);
  parsed.tensor_name = std::string(parts[3]);
  return parsed;
}

int Rendezvous::AddAbortListener(std::function<void(const Status&)> listener, Status* aborted) {
  MutexLock lock(listeners_mu_);
  if (!listeners_abort_.ok()) {
    *aborted = listeners_abort_;
    return -1;
  }
  const int id = next_listener_++;
  listeners_.emplace(id, std::move(listener));
  return id;
}

void Rendezvous::RemoveAbortListener(int id) {
  if (id < 0) return;
  MutexLock lock(listeners_mu_);
  listeners_.erase(id);
}

void Rendezvous::NotifyAbortListeners(const Status& status) {
  const Status abort = status.ok() ? errors::Aborted("Rendezvous aborted") : status;
  std::map<int, std::function<void(const Status&)>> listeners;
  {
    MutexLock lock(listeners_mu_);
    if (!listeners_abort_.ok()) return;
    listeners_abort_ = abort;
    listeners.swap(listeners_);
  }
  for (auto& [id, listener] : listeners) listener(abort);
}

Status Rendezvous::Recv(const std::string& key, Tensor* value) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Status result;
  RecvAsync(key, [&](const Status& status, const Tensor& tensor) {
    std::lock_guard<std::mutex> lock(mu);
    result = status;
    if (status.ok()) *value = tensor;
    done = true;
    cv.notify_one();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  return result;
}

Status LocalRendezvous::Send(const std::string& key, const Tensor& value) {
  DoneCallback waiter;
  {
    MutexLock lock(mu_);
    if (!abort_status_.ok()) return abort_status_;
    auto waiting = waiting_.find(key);
    if (waiting == waiting_.end()) {
      if (!ready_.emplace(key, value).second) return errors::Aborted("Duplicated send: ", key);
      return OkStatus();
    }
    waiter = std::move(waiting->second);
    waiting_.erase(waiting);
  }
  // Outside the lock: the receiver usually goes on to run its successors right here.
  waiter(OkStatus(), value);
  return OkStatus();
}

void LocalRendezvous::RecvAsync(const std::string& key, DoneCallback done) {
  Tensor value;
  Status status;
  {
    MutexLock lock(mu_);
    if (!abort_status_.ok()) {
      status = abort_status_;
    } else if (auto ready = ready_.find(key); ready != ready_.end()) {
      value = std::move(ready->second);
      ready_.erase(ready);
    } else {
      waiting_.emplace(key, std::move(done));
      return;
    }
  }
  done(status, value);
}

bool LocalRendezvous::Idle() {
  MutexLock lock(mu_);
  return ready_.empty() && waiting_.empty();
}

Status LocalRendezvous::abort_status() const {
  MutexLock lock(mu_);
  return abort_status_;
}

void LocalRendezvous::StartAbort(const Status& status) {
  const Status abort = status.ok() ? errors::Aborted("Rendezvous aborted") : status;
  std::multimap<std::string, DoneCallback> waiting;
  {
    MutexLock lock(mu_);
    // The first failure is the cause; later ones are its consequences.
    if (!abort_status_.ok()) return;
    abort_status_ = abort;
    waiting.swap(waiting_);
    ready_.clear();
  }
  for (auto& [key, done] : waiting) done(abort, Tensor());
  NotifyAbortListeners(abort);
}

}  // namespace clab
