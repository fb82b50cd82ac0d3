#include "distributed/StepRendezvous.h"

#include <atomic>
#include <vector>

namespace clab {

struct StepRendezvous::PendingPull {
  tensorflow::RecvTensorRequest request;
  Tensor value;
  bool is_dead = false;
  std::string task;
  DoneCallback done;
  // Whoever flips it first (the reply or an abort) calls `done`.
  std::atomic<bool> finished{false};
};

StepRendezvous::~StepRendezvous() {
  // Nothing may wait on a step that is gone.
  StartAbort(errors::Aborted("Step ", step_id_, " ended before its tensors were received"));
}

void StepRendezvous::SetRemoteSources(const RemoteTensorSources* sources) {
  MutexLock lock(mu_);
  remote_sources_ = sources;
}

void StepRendezvous::ClearRemoteSources(const RemoteTensorSources* sources) {
  MutexLock lock(mu_);
  if (remote_sources_ == sources) remote_sources_ = nullptr;
}

void StepRendezvous::AddDeliveredKeys(const std::vector<std::string>& keys) {
  MutexLock lock(mu_);
  delivered_keys_.insert(delivered_keys_.end(), keys.begin(), keys.end());
}

Status StepRendezvous::Send(const std::string& key, const Tensor& value) { return local_.Send(key, value); }

void StepRendezvous::RecvAsync(const std::string& key, DoneCallback done) {
  const RemoteTensorSource* source = nullptr;
  {
    MutexLock lock(mu_);
    bool delivered = false;
    for (const std::string& k : delivered_keys_) delivered |= k == key;
    if (remote_sources_ && !delivered) {
      auto it = remote_sources_->find(key);
      if (it != remote_sources_->end()) source = &it->second;
    }
  }
  if (!source) return local_.RecvAsync(key, std::move(done));
  PullFromPeer(key, *source, std::move(done));
}

void StepRendezvous::RecvLocalAsync(const std::string& key, DoneCallback done) {
  local_.RecvAsync(key, std::move(done));
}

void StepRendezvous::PullFromPeer(const std::string& key, const RemoteTensorSource& source, DoneCallback done) {
  auto pull = std::make_shared<PendingPull>();
  pull->request.set_step_id(step_id_);
  pull->request.set_rendezvous_key(key);
  pull->task = source.task;
  pull->done = std::move(done);
  uint64_t id = 0;
  Status aborted;
  {
    MutexLock lock(mu_);
    aborted = abort_cause_;
    if (aborted.ok()) {
      id = next_pull_id_++;
      pending_pulls_.emplace(id, pull);
    }
  }
  if (!aborted.ok()) return pull->done(aborted, Tensor());
  // The reply writes into `pull` and may come after an abort answered it and after the
  // step's run ended, so the callback keeps both the pull and the step alive.
  source.worker->RecvTensorValueAsync(
      pull->request, &pull->value, &pull->is_dead, &pulls_cancellation_,
      [self = shared_from_this(), pull, id](const Status& status) { self->FinishPull(id, status); });
}

void StepRendezvous::FinishPull(uint64_t id, const Status& status) {
  std::shared_ptr<PendingPull> pull;
  {
    MutexLock lock(mu_);
    auto it = pending_pulls_.find(id);
    if (it == pending_pulls_.end()) return;  // the abort answered it already
    pull = std::move(it->second);
    pending_pulls_.erase(it);
  }
  if (pull->finished.exchange(true)) return;
  if (status.ok() && pull->is_dead)
    return pull->done(errors::Unimplemented("Received a dead tensor for ", pull->request.rendezvous_key(), " from ",
                                            pull->task, "; control flow is not supported"),
                      Tensor());
  // Moved out: the kernel now owns the only reference, so nothing pins the buffer later.
  Tensor value = std::move(pull->value);
  pull->done(status, value);
}

void StepRendezvous::StartAbort(const Status& status) {
  const Status cause = status.ok() ? errors::Aborted("Step ", step_id_, " was aborted") : status;
  std::unordered_map<uint64_t, std::shared_ptr<PendingPull>> pulls;
  {
    MutexLock lock(mu_);
    if (!abort_cause_.ok()) return;
    abort_cause_ = cause;
    pulls.swap(pending_pulls_);
  }
  local_.StartAbort(cause);
  // Answer the pulls now rather than when gRPC confirms their cancellation: the step
  // should stop at once even over a link that stopped answering.
  for (auto& [id, pull] : pulls) {
    if (!pull->finished.exchange(true)) pull->done(cause, Tensor());
  }
  pulls_cancellation_.Cancel();
  NotifyAbortListeners(cause);
}

bool StepRendezvous::Idle() {
  {
    MutexLock lock(mu_);
    if (!abort_cause_.ok() || !pending_pulls_.empty()) return false;
  }
  return local_.Idle();
}

Status StepRendezvous::abort_cause() const {
  MutexLock lock(mu_);
  return abort_cause_;
}

}  // namespace clab
