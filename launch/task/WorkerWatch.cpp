#include "launch/task/WorkerWatch.h"

#include "clab/monitor.grpc.pb.h"

#include <absl/strings/str_cat.h>
#include <grpcpp/grpcpp.h>

namespace clab::launch {

WorkerWatch::WorkerWatch(const ClusterSpec& cluster, std::string job, std::chrono::milliseconds poll_interval)
    : poll_interval_(poll_interval) {
  if (!cluster.HasJob(job)) return;
  for (const auto& [index, address] : cluster.all_jobs().at(job))
    workers_[absl::StrCat("/job:", job, "/replica:0/task:", index)] = Worker{address};
}

bool WorkerWatch::PollOnce() {
  bool all_done = true;
  for (auto& [name, worker] : workers_) {
    if (worker.done) continue;
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
    auto stub = MonitorService::NewStub(
        grpc::CreateCustomChannel(worker.address, grpc::InsecureChannelCredentials(), args));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
    TaskInfoResponse info;
    const grpc::Status status = stub->GetTaskInfo(&context, TaskInfoRequest(), &info);
    if (status.ok()) {
      worker.seen = true;
      worker.done = info.state().phase() == TaskState::STOPPED;
    } else {
      // Not answering before it was ever seen: it has not started yet.
      worker.done = worker.seen;
    }
    all_done = all_done && worker.done;
  }
  return all_done;
}

bool WorkerWatch::WaitUntilDone() {
  if (workers_.empty()) return false;
  for (;;) {
    if (PollOnce()) return true;
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_for(lock, poll_interval_, [this] { return cancelled_; })) return false;
  }
}

void WorkerWatch::Cancel() {
  std::lock_guard<std::mutex> lock(mu_);
  cancelled_ = true;
  cv_.notify_all();
}

}  // namespace clab::launch
