// The plans a session has built, one per StepSignature key: what a local session runs
// (executors per device) or what a master registered with its workers. Thread-safe; a plan
// handed out stays alive with whoever holds it, also after the cache lets go of it.
#pragma once

#include "clab/core/Mutex.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace clab {

template <typename Plan>
class PlanCache {
 public:
  // Null when the signature has no plan yet.
  std::shared_ptr<const Plan> Find(const std::string& key) const {
    MutexLock lock(mu_);
    auto it = plans_.find(key);
    return it == plans_.end() ? nullptr : it->second;
  }
  // Keeps `plan` under `key` unless a plan is there already; returns the one kept.
  std::shared_ptr<const Plan> Insert(const std::string& key, std::shared_ptr<const Plan> plan) {
    MutexLock lock(mu_);
    return plans_.try_emplace(key, std::move(plan)).first->second;
  }
  // Empties the cache and hands back what it held.
  std::vector<std::shared_ptr<const Plan>> TakeAll() {
    std::unordered_map<std::string, std::shared_ptr<const Plan>> plans;
    {
      MutexLock lock(mu_);
      plans.swap(plans_);
    }
    std::vector<std::shared_ptr<const Plan>> taken;
    for (auto& [key, plan] : plans) taken.push_back(std::move(plan));
    return taken;
  }
  size_t size() const {
    MutexLock lock(mu_);
    return plans_.size();
  }

 private:
  mutable Mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const Plan>> plans_ ABSL_GUARDED_BY(mu_);
};

}  // namespace clab
