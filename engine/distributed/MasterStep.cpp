#include "distributed/MasterStep.h"

#include "distributed/DeadlineTimer.h"

#include <absl/strings/match.h>

#include <algorithm>
#include <random>

namespace clab {
namespace {

// Random ids keep steps of different sessions (and masters) apart on a shared worker; the
// top byte is fixed so an id is never 0 or negative.
int64_t NewStepId() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  constexpr uint64_t kLowBits = (uint64_t{1} << 56) - 1;
  return static_cast<int64_t>((engine() & kLowBits) | (uint64_t{1} << 56));
}

// A worker may report its error in the response body rather than the call status.
Status BodyStatus(const tensorflow::RunGraphResponse& response) {
  if (response.status_code() == 0) return OkStatus();
  return Status(static_cast<absl::StatusCode>(response.status_code()), response.status_error_message());
}

Status FromTask(const std::string& task, const Status& status) {
  // A worker may already have said where the error came from (a peer's failure).
  if (absl::StartsWith(status.message(), "From /job:")) return status;
  return Status(status.code(), StrCat("From ", task, ": ", status.message()));
}

}  // namespace

MasterStep::MasterStep(Params params, Done done) : params_(std::move(params)), done_(std::move(done)) {}

void MasterStep::Start(Params params, Done done) {
  std::shared_ptr<MasterStep> step(new MasterStep(std::move(params), std::move(done)));
  step->IssuePartitions();
}

void MasterStep::IssuePartitions() {
  const StepPlan& plan = *params_.plan;
  const tensorflow::RunStepRequest& request = *params_.request;
  const size_t num_partitions = plan.partitions.size();
  step_id_ = NewStepId();
  trace_ = request.options().trace_level() == tensorflow::RunOptions::FULL_TRACE;

  requests_.resize(num_partitions);
  responses_.resize(num_partitions);
  fed_.resize(num_partitions);
  for (size_t p = 0; p < num_partitions; ++p) {
    tensorflow::RunGraphRequest& run = requests_[p];
    run.set_session_handle(params_.session_handle);
    run.set_graph_handle(plan.partitions[p].graph_handle);
    run.set_step_id(step_id_);
    if (trace_) {
      run.mutable_exec_opts()->set_record_timeline(true);
      run.mutable_exec_opts()->set_record_costs(true);
    }
    if (HandsOverFeeds(p)) {
      fed_[p].resize(plan.partitions[p].feeds.size());
    } else {
      for (size_t f = 0; f < plan.partitions[p].feeds.size(); ++f) run.add_send();
    }
    for (const std::string& key : plan.partitions[p].delivered_keys) run.add_delivered_key(key);
  }
  for (int i = 0; i < request.feed_size(); ++i) {
    const tensorflow::NamedTensorProto& feed = request.feed(i);
    auto route = plan.feed_routes.find(feed.name());
    if (route == plan.feed_routes.end() || route->second.partition < 0) continue;
    const size_t p = static_cast<size_t>(route->second.partition);
    const size_t index = static_cast<size_t>(route->second.index);
    if (HandsOverFeeds(p)) {
      fed_[p][index] = (*params_.feed_values)[static_cast<size_t>(i)];  // shares the buffer
      continue;
    }
    tensorflow::NamedTensorProto* send = requests_[p].mutable_send(static_cast<int>(index));
    send->set_name(plan.partitions[p].feeds[index]);
    if (params_.feed_values != nullptr) {
      (*params_.feed_values)[static_cast<size_t>(i)].AsProto(send->mutable_tensor());
    } else {
      *send->mutable_tensor() = feed.tensor();
    }
  }

  pending_.store(static_cast<int>(num_partitions), std::memory_order_relaxed);
  if (num_partitions == 0) {
    Finish();
    return;
  }
  auto self = shared_from_this();
  if (params_.timeout_ms > 0) {
    std::weak_ptr<MasterStep> weak = self;
    const int64_t timeout_ms = params_.timeout_ms;
    timer_id_ = DeadlineTimer::Default()->Schedule(timeout_ms, [weak, timeout_ms] {
      if (auto step = weak.lock())
        step->Abort(
            errors::DeadlineExceeded("Timed out waiting for the step to finish (RunOptions.timeout_in_ms "
                                     "or operation_timeout_in_ms is ",
                                     timeout_ms, " ms)"));
    });
  }
  if (params_.client_cancellation != nullptr) {
    std::weak_ptr<MasterStep> weak = self;
    client_cancel_id_ = params_.client_cancellation->Register([weak] {
      if (auto step = weak.lock()) step->Abort(errors::Cancelled("RunStep was cancelled by its client"));
    });
  }
  fetched_.resize(num_partitions);
  for (size_t p = 0; p < num_partitions; ++p) {
    if (plan.partitions[p].pushed_keys.empty()) {
      IssuePartition(p);
    } else {
      PushThenIssue(p);
    }
  }
}

void MasterStep::IssuePartition(size_t p) {
  const StepPlan::Partition& partition = params_.plan->partitions[p];
  auto done = [self = shared_from_this(), p](const Status& status) { self->PartitionDone(p, status); };
  if (HandsOverFeeds(p)) {
    partition.worker->RunGraphInProcessAsync(requests_[p], &responses_[p], std::move(fed_[p]), &fetched_[p],
                                             &cancellation_, std::move(done));
  } else if (UsesTensors(p)) {
    partition.worker->RunGraphWithTensorsAsync(requests_[p], &responses_[p], &fetched_[p], &cancellation_,
                                               std::move(done));
  } else {
    partition.worker->RunGraphAsync(requests_[p], &responses_[p], &cancellation_, std::move(done));
  }
}

void MasterStep::PushThenIssue(size_t p) {
  const StepPlan::Partition& partition = params_.plan->partitions[p];
  struct Pushed {
    std::vector<tensorflow::RecvTensorRequest> requests;
    std::vector<Tensor> values;
    std::unique_ptr<bool[]> dead;
    std::atomic<int> pending{0};
    std::mutex mu;
    Status status;
  };
  auto pushed = std::make_shared<Pushed>();
  const size_t count = partition.pushed_keys.size();
  pushed->requests.resize(count);
  pushed->values.resize(count);
  pushed->dead = std::make_unique<bool[]>(count);
  pushed->pending.store(static_cast<int>(count));
  auto self = shared_from_this();
  for (size_t k = 0; k < count; ++k) {
    pushed->requests[k].set_step_id(step_id_);
    pushed->requests[k].set_rendezvous_key(partition.pushed_keys[k]);
    pushed->dead[k] = false;
    // From the master's own worker: in this process, no call.
    partition.pushed_from->RecvTensorValueAsync(pushed->requests[k], &pushed->values[k], &pushed->dead[k],
                                                &cancellation_, [self, pushed, p, k](const Status& status) {
                                                  if (!status.ok()) {
                                                    std::lock_guard<std::mutex> lock(pushed->mu);
                                                    if (pushed->status.ok()) pushed->status = status;
                                                  }
                                                  if (pushed->pending.fetch_sub(1, std::memory_order_acq_rel) != 1)
                                                    return;
                                                  if (!pushed->status.ok())
                                                    return self->PartitionDone(p, pushed->status);
                                                  const StepPlan::Partition& part = self->params_.plan->partitions[p];
                                                  for (size_t i = 0; i < pushed->values.size(); ++i) {
                                                    tensorflow::NamedTensorProto* delivered =
                                                        self->requests_[p].add_delivered();
                                                    delivered->set_name(part.pushed_keys[i]);
                                                    pushed->values[i].AsProto(delivered->mutable_tensor());
                                                  }
                                                  self->IssuePartition(p);
                                                });
  }
}

void MasterStep::Abort(const Status& status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (abort_status_.ok()) abort_status_ = status;
  }
  cancellation_.Cancel();
}

bool MasterStep::UsesTensors(size_t partition) const {
  return params_.outputs != nullptr || !params_.plan->partitions[partition].inlined_sends.empty() ||
         HandsOverFeeds(partition);
}

bool MasterStep::HandsOverFeeds(size_t partition) const {
  return params_.feed_values != nullptr && params_.plan->partitions[partition].worker->InProcess();
}

Status MasterStep::DeliverInlinedSends(size_t partition) {
  const StepPlan& plan = *params_.plan;
  for (const StepPlan::Partition::InlinedSend& send : plan.partitions[partition].inlined_sends) {
    if (send.fetch_index >= static_cast<int>(fetched_[partition].size()))
      return errors::Internal("the worker returned ", fetched_[partition].size(), " tensors, expected more");
    for (const StepPlan::Partition& target : plan.partitions) {
      if (target.delivered_keys.empty()) continue;
      CLAB_RETURN_IF_ERROR(
          target.worker->DeliverTensor(step_id_, send.key, fetched_[partition][static_cast<size_t>(send.fetch_index)]));
    }
  }
  return OkStatus();
}

void MasterStep::PartitionDone(size_t partition, Status status) {
  if (status.ok()) status = BodyStatus(responses_[partition]);
  if (status.ok()) status = DeliverInlinedSends(partition);
  if (!status.ok()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      errors_.emplace_back(partition, status);
    }
    cancellation_.Cancel();
  }
  if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) Finish();
}

// The step's error: an abort (deadline) first; then the first failure that is not merely
// another partition being cancelled because of it.
Status MasterStep::StepStatus() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!abort_status_.ok()) return abort_status_;
  if (errors_.empty()) return OkStatus();
  const auto* chosen = &errors_.front();
  for (const auto& error : errors_) {
    if (error.second.code() != absl::StatusCode::kCancelled) {
      chosen = &error;
      break;
    }
  }
  return FromTask(params_.plan->partitions[chosen->first].task, chosen->second);
}

void MasterStep::Finish() {
  if (timer_id_ != 0) DeadlineTimer::Default()->Cancel(timer_id_);
  if (params_.client_cancellation != nullptr) params_.client_cancellation->Deregister(client_cancel_id_);
  Status status = StepStatus();
  CleanupOnWorkers(status.ok());
  if (status.ok()) status = CollectFetches();

  const tensorflow::RunOptions& options = params_.request->options();
  if (trace_ || options.output_partition_graphs()) {
    tensorflow::RunMetadata* metadata = params_.response->mutable_metadata();
    if (trace_) {
      for (tensorflow::RunGraphResponse& response : responses_)
        for (tensorflow::DeviceStepStats& stats : *response.mutable_step_stats()->mutable_dev_stats())
          metadata->mutable_step_stats()->add_dev_stats()->Swap(&stats);
    }
    if (options.output_partition_graphs()) {
      for (const StepPlan::Partition& partition : params_.plan->partitions)
        *metadata->add_partition_graphs() = partition.graph;
    }
  }
  Done done = std::move(done_);
  done(status);
}

Status MasterStep::CollectFetches() {
  const StepPlan& plan = *params_.plan;
  const tensorflow::RunStepRequest& request = *params_.request;
  if (params_.outputs != nullptr) {
    std::vector<Tensor>& outputs = *params_.outputs;
    outputs.clear();
    outputs.reserve(static_cast<size_t>(request.fetch_size()));
    for (int j = 0; j < request.fetch_size(); ++j) {
      auto route_it = plan.fetch_routes.find(request.fetch(j));
      if (route_it == plan.fetch_routes.end())
        return errors::Internal("Fetch '", request.fetch(j), "' has no route in the step's plan");
      const size_t p = static_cast<size_t>(route_it->second.partition);
      if (route_it->second.index >= static_cast<int>(fetched_[p].size()))
        return errors::Internal("From ", plan.partitions[p].task, ": the worker returned ", fetched_[p].size(),
                                " fetched tensor(s), expected ", plan.partitions[p].fetches.size());
      // Tensors share their buffers: a tensor fetched twice is not copied.
      outputs.push_back(fetched_[p][static_cast<size_t>(route_it->second.index)]);
    }
    return OkStatus();
  }
  tensorflow::RunStepResponse* response = params_.response;
  // Where each worker tensor went in the response, so a tensor fetched twice is moved once
  // and then copied.
  std::vector<int> placed_at(static_cast<size_t>(plan.num_fetches), -1);
  for (int j = 0; j < request.fetch_size(); ++j) {
    const std::string& name = request.fetch(j);
    auto route_it = plan.fetch_routes.find(name);
    if (route_it == plan.fetch_routes.end())
      return errors::Internal("Fetch '", name, "' has no route in the step's plan");
    const StepRoutes::Route& route = route_it->second;
    const size_t p = static_cast<size_t>(route.partition);
    tensorflow::RunGraphResponse& from = responses_[p];
    const int returned = UsesTensors(p) ? static_cast<int>(fetched_[p].size()) : from.recv_size();
    if (route.index >= returned)
      return errors::Internal("From ", plan.partitions[p].task, ": the worker returned ", returned,
                              " fetched tensor(s), expected ", plan.partitions[p].fetches.size());
    const size_t slot = static_cast<size_t>(plan.fetch_offset[p] + route.index);
    tensorflow::NamedTensorProto* out = response->add_tensor();
    out->set_name(name);
    if (UsesTensors(p)) {
      fetched_[p][static_cast<size_t>(route.index)].AsProto(out->mutable_tensor());
    } else if (placed_at[slot] < 0) {
      out->mutable_tensor()->Swap(from.mutable_recv(route.index)->mutable_tensor());
      placed_at[slot] = j;
    } else {
      *out->mutable_tensor() = response->tensor(placed_at[slot]).tensor();
    }
  }
  return OkStatus();
}

// Per-step state on a worker (a rendezvous with tensors nobody received) is dropped at once
// rather than left to time out. Nothing waits for the answers.
void MasterStep::CleanupOnWorkers(bool step_ok) {
  struct Cleanup {
    tensorflow::CleanupGraphRequest request;
    tensorflow::CleanupGraphResponse response;
  };
  // Once per worker, however many parts it ran; after a good step none to a worker whose
  // parts left nothing there (it forgot the step itself).
  const StepPlan& plan = *params_.plan;
  for (WorkerInterface* worker : step_ok ? plan.workers_to_clean : plan.workers) {
    auto call = std::make_shared<Cleanup>();
    call->request.set_step_id(step_id_);
    worker->CleanupGraphAsync(call->request, &call->response, [call](const Status&) {});
  }
}

}  // namespace clab
