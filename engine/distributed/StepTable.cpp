#include "distributed/StepTable.h"

#include <algorithm>
#include <vector>

namespace clab {

StepTable::StepTable(std::string task_name, std::chrono::milliseconds abandoned_after)
    : task_name_(std::move(task_name)), abandoned_after_(abandoned_after) {
  reaper_ = std::thread([this] { ReapLoop(); });
}

StepTable::~StepTable() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_reaper_.NotifyAll();
  reaper_.join();
  AbortAll(errors::Aborted("The worker of ", task_name_, " is shutting down"));
}

StatusOr<std::shared_ptr<StepRendezvous>> StepTable::Acquire(int64_t step_id) {
  MutexLock lock(mu_);
  if (cleaned_up_.count(step_id))
    return errors::Aborted("Step ", step_id, " has already been cleaned up on ", task_name_, "; its tensors are gone");
  Entry& entry = steps_[step_id];
  if (!entry.rendezvous) entry.rendezvous = std::make_shared<StepRendezvous>(step_id);
  ++entry.holds;
  entry.last_activity = Clock::now();
  return entry.rendezvous;
}

void StepTable::Release(int64_t step_id) {
  std::shared_ptr<StepRendezvous> dropped;
  {
    MutexLock lock(mu_);
    auto it = steps_.find(step_id);
    if (it == steps_.end()) return;
    it->second.holds = std::max(0, it->second.holds - 1);
    it->second.last_activity = Clock::now();
    // A step that left nothing behind here needs no CleanupGraph: forget it now (not as
    // cleaned up, since another run of the step may still come and start afresh). A peer's
    // RecvTensor that has the rendezvous but has not put its waiter in yet holds it, so the
    // step is not forgotten (and aborted) under it.
    if (it->second.holds == 0 && it->second.rendezvous->Idle()) {
      dropped = std::move(it->second.rendezvous);
      steps_.erase(it);
    }
  }
  if (dropped) dropped->StartAbort(errors::Aborted("Step ", step_id, " has finished on ", task_name_));
}

void StepTable::Cleanup(int64_t step_id) {
  std::shared_ptr<StepRendezvous> rendezvous;
  {
    MutexLock lock(mu_);
    cleaned_up_[step_id] = Clock::now();
    auto it = steps_.find(step_id);
    if (it == steps_.end()) return;
    rendezvous = std::move(it->second.rendezvous);
    steps_.erase(it);
  }
  // A RunGraph still in flight keeps its own reference and ends with this error.
  rendezvous->StartAbort(errors::Cancelled("Step ", step_id, " was cleaned up on ", task_name_));
}

void StepTable::Abort(int64_t step_id, const Status& status) {
  std::shared_ptr<StepRendezvous> rendezvous;
  {
    MutexLock lock(mu_);
    auto it = steps_.find(step_id);
    if (it == steps_.end()) return;
    rendezvous = it->second.rendezvous;
  }
  rendezvous->StartAbort(status);
}

void StepTable::AbortAll(const Status& status) {
  std::vector<std::shared_ptr<StepRendezvous>> all;
  {
    MutexLock lock(mu_);
    for (auto& [id, entry] : steps_) all.push_back(entry.rendezvous);
  }
  for (auto& rendezvous : all) rendezvous->StartAbort(status);
}

void StepTable::SetAbandonedTimeout(std::chrono::milliseconds timeout) {
  {
    MutexLock lock(mu_);
    abandoned_after_ = timeout;
  }
  wake_reaper_.NotifyAll();
}

size_t StepTable::size() const {
  MutexLock lock(mu_);
  return steps_.size();
}

Status StepTable::AbortStatus(int64_t step_id) const {
  std::shared_ptr<StepRendezvous> rendezvous;
  {
    MutexLock lock(mu_);
    auto it = steps_.find(step_id);
    if (it == steps_.end()) return OkStatus();
    rendezvous = it->second.rendezvous;
  }
  return rendezvous->abort_cause();
}

void StepTable::ReapLoop() {
  for (;;) {
    {
      MutexLock lock(mu_);
      // Checking a few times per timeout keeps the overshoot small without busy waking.
      const auto period = std::clamp<std::chrono::milliseconds>(abandoned_after_ / 4, std::chrono::milliseconds(10),
                                                                std::chrono::milliseconds(1000));
      wake_reaper_.WaitFor(mu_, period, [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; });
      if (stopping_) return;
    }
    ReapOnce(Clock::now());
  }
}

void StepTable::ReapOnce(Clock::time_point now) {
  std::vector<std::pair<int64_t, std::shared_ptr<StepRendezvous>>> abandoned;
  std::chrono::milliseconds abandoned_after{0};
  {
    MutexLock lock(mu_);
    abandoned_after = abandoned_after_;
    for (auto it = steps_.begin(); it != steps_.end();) {
      if (it->second.holds == 0 && now - it->second.last_activity >= abandoned_after_) {
        abandoned.emplace_back(it->first, std::move(it->second.rendezvous));
        it = steps_.erase(it);
      } else {
        ++it;
      }
    }
    for (auto it = cleaned_up_.begin(); it != cleaned_up_.end();) {
      it = now - it->second >= abandoned_after_ ? cleaned_up_.erase(it) : std::next(it);
    }
  }
  for (auto& [id, rendezvous] : abandoned) {
    rendezvous->StartAbort(errors::Aborted("Step ", id, " on ", task_name_,
                                           " was abandoned: no CleanupGraph came within ", abandoned_after.count(),
                                           " ms of its last activity"));
  }
}

}  // namespace clab
