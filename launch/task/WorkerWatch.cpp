#include "launch/task/WorkerWatch.h"

#include "clab/distributed/ClusterAccess.h"
#include "clab/monitor.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <climits>

#include <thread>

namespace clab::launch {
namespace {

constexpr std::chrono::milliseconds kRetry(50);

std::unique_ptr<MonitorService::Stub> Stub(const std::string& address) {
  // TLS and token of the process's cluster access (--tls_dir, --token_file), if any.
  const std::shared_ptr<const ClusterAccess> access = DefaultClusterAccess();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(static_cast<int>(std::min<int64_t>(access->max_message_bytes, INT_MAX)));
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
  return MonitorService::NewStub(grpc::CreateCustomChannel(address, ClusterChannelCredentials(*access), args));
}

}  // namespace

WorkerWatch::WorkerWatch(const ClusterSpec& cluster, std::string job) {
  if (!cluster.HasJob(job)) return;
  for (const auto& [index, address] : cluster.all_jobs().at(job)) {
    workers_.push_back(std::make_unique<Worker>());
    workers_.back()->address = address;
  }
}

WorkerWatch::~WorkerWatch() { Cancel(); }

bool WorkerWatch::Sleep() {
  std::unique_lock<std::mutex> lock(mu_);
  return !cv_.wait_for(lock, kRetry, [this] { return cancelled_; });
}

bool WorkerWatch::StillRunning(const Worker& worker) const {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  TaskInfoResponse info;
  return Stub(worker.address)->GetTaskInfo(&context, TaskInfoRequest(), &info).ok() &&
         info.state().phase() != TaskState::STOPPED;
}

void WorkerWatch::Follow(Worker& worker) {
  for (;;) {
    auto stub = Stub(worker.address);
    grpc::ClientContext context;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cancelled_) return;
      worker.call = &context;
    }
    // The stream starts with the events the worker kept: being watched at all is being seen.
    std::unique_ptr<grpc::ClientReader<TaskEvent>> reader = stub->Watch(&context, WatchRequest());
    {
      // A Cancel() that came while the call was being made finds it now.
      std::lock_guard<std::mutex> lock(mu_);
      if (cancelled_) context.TryCancel();
    }
    TaskEvent event;
    bool seen = false, stopped = false;
    while (reader->Read(&event)) {
      seen = true;
      if (event.has_state() && event.state().phase() == TaskState::STOPPED) stopped = true;
    }
    reader->Finish();
    {
      std::lock_guard<std::mutex> lock(mu_);
      worker.call = nullptr;
      if (cancelled_) return;
    }
    // A stream ends when the worker goes, or when the link breaks: ask once more.
    if (seen && (stopped || !StillRunning(worker))) {
      std::lock_guard<std::mutex> lock(mu_);
      worker.done = true;
      cv_.notify_all();
      return;
    }
    if (!Sleep()) return;  // not up yet (or still there): watch again shortly
  }
}

bool WorkerWatch::WaitUntilDone() {
  if (workers_.empty()) return false;
  std::vector<std::thread> threads;
  for (auto& worker : workers_) threads.emplace_back([this, &worker] { Follow(*worker); });
  bool all_done = false;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] {
      all_done = true;
      for (const auto& worker : workers_) all_done = all_done && worker->done;
      return all_done || cancelled_;
    });
  }
  Cancel();  // ends the followers still waiting
  for (std::thread& thread : threads) thread.join();
  return all_done;
}

void WorkerWatch::Cancel() {
  std::lock_guard<std::mutex> lock(mu_);
  cancelled_ = true;
  for (auto& worker : workers_)
    if (worker->call != nullptr) worker->call->TryCancel();
  cv_.notify_all();
}

}  // namespace clab::launch
