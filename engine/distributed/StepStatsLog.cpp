#include "distributed/StepStatsLog.h"

namespace clab {

bool StepStatsLog::enabled() const {
  MutexLock lock(mu_);
  return enabled_;
}

void StepStatsLog::Record(int64_t step_id, const tensorflow::StepStats& stats) {
  MutexLock lock(mu_);
  if (!enabled_) return;
  auto [it, inserted] = steps_.try_emplace(step_id);
  if (inserted) {
    order_.push_back(step_id);
    if (order_.size() > kMaxSteps) {
      steps_.erase(order_.front());
      order_.pop_front();
    }
  }
  it->second.MergeFrom(stats);
}

void StepStatsLog::Apply(const tensorflow::LoggingRequest& request, tensorflow::LoggingResponse* response) {
  MutexLock lock(mu_);
  if (request.enable_rpc_logging()) enabled_ = true;
  // Older masters turn logging off with a request that neither enables nor fetches.
  if (request.disable_rpc_logging() || (!request.enable_rpc_logging() && request.fetch_step_id_size() == 0))
    enabled_ = false;
  // Fetched before clearing, so one request can take the stats and start afresh.
  for (int64_t step_id : request.fetch_step_id()) {
    auto it = steps_.find(step_id);
    if (it == steps_.end()) continue;
    tensorflow::LabeledStepStats* labeled = response->add_step();
    labeled->set_step_id(step_id);
    *labeled->mutable_step_stats() = it->second;
  }
  if (request.clear()) {
    steps_.clear();
    order_.clear();
  }
}

}  // namespace clab
