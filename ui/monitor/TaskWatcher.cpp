#include "monitor/TaskWatcher.h"

#include "clab/distributed/ClusterAccess.h"
#include "clab/monitor.grpc.pb.h"
#include "tensorflow/worker.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <climits>

#include <chrono>
#include <utility>

namespace clab::ui {
namespace {

constexpr auto kRetryDelay = std::chrono::milliseconds(200);
constexpr auto kInfoDeadline = std::chrono::seconds(5);
// An address with something else than a ClusterLab task is asked again at this pace.
constexpr auto kProblemRetryDelay = std::chrono::milliseconds(1000);

}  // namespace

TaskWatcher::TaskWatcher(QString task, std::string address) : task_(std::move(task)), address_(std::move(address)) {
  thread_ = std::thread([this] { loop(); });
}

TaskWatcher::~TaskWatcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    if (context_) context_->TryCancel();
    if (info_context_) info_context_->TryCancel();
  }
  closed_.notify_all();
  thread_.join();
}

std::vector<TaskEvent> TaskWatcher::take(size_t max_events) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<TaskEvent> taken;
  if (pending_.size() <= max_events) {
    taken.swap(pending_);
    return taken;
  }
  const auto end = pending_.begin() + static_cast<std::ptrdiff_t>(max_events);
  taken.assign(std::make_move_iterator(pending_.begin()), std::make_move_iterator(end));
  pending_.erase(pending_.begin(), end);
  return taken;
}

int64_t TaskWatcher::takeMissed() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(missed_, 0);
}

bool TaskWatcher::takeInfo(TaskInfoResponse* info) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!has_info_) return false;
  *info = info_;
  has_info_ = false;
  return true;
}

ProbeResult TaskWatcher::problem() const {
  std::lock_guard<std::mutex> lock(mu_);
  return problem_;
}

void TaskWatcher::setProblem(ProbeResult problem) {
  std::lock_guard<std::mutex> lock(mu_);
  problem_ = std::move(problem);
}

void TaskWatcher::pause(std::chrono::milliseconds duration) {
  std::unique_lock<std::mutex> lock(mu_);
  closed_.wait_for(lock, duration, [this] { return stopping_.load(); });
}

bool TaskWatcher::waitUntilClosed(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return closed_.wait_for(lock, timeout, [this] { return !connected_; });
}

void TaskWatcher::loop() {
  // TLS and token of the process's cluster access (--tls_dir, --token_file), if any.
  const std::shared_ptr<const ClusterAccess> access = DefaultClusterAccess();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(static_cast<int>(std::min<int64_t>(access->max_message_bytes, INT_MAX)));
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  const auto channel = grpc::CreateCustomChannel(address_, ClusterChannelCredentials(*access), args);
  auto stub = MonitorService::NewStub(channel);
  int64_t seen = 0;
  // Asked once per opened stream: a task that restarted may have other devices.
  auto fetch_info = [&] {
    auto context = std::make_shared<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + kInfoDeadline);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      info_context_ = context;
    }
    TaskInfoResponse info;
    const grpc::Status status = stub->GetTaskInfo(context.get(), TaskInfoRequest(), &info);
    std::lock_guard<std::mutex> lock(mu_);
    info_context_.reset();
    if (!status.ok()) return;
    info_ = std::move(info);
    has_info_ = true;
  };
  // A server that answers gRPC but not the event stream: is it TensorFlow's (GetStatus)?
  auto tensorflow_server = [&] {
    auto context = std::make_shared<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + kInfoDeadline);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return false;
      info_context_ = context;
    }
    auto worker = tensorflow::WorkerService::NewStub(channel);
    tensorflow::GetStatusResponse response;
    const grpc::Status status = worker->GetStatus(context.get(), tensorflow::GetStatusRequest(), &response);
    std::lock_guard<std::mutex> lock(mu_);
    info_context_.reset();
    return status.ok();
  };
  while (!stopping_) {
    // First what is at the address: a task that is not up yet, or not a server at all, is
    // said so instead of a stream that waits without a word.
    if (ProbeResult probe = TaskProbe::check(address_, access->secured(), stopping_);
        probe.problem != WatchProblem::kNone) {
      const auto delay = probe.problem == WatchProblem::kRefused ? kRetryDelay : kProblemRetryDelay;
      setProblem(std::move(probe));
      pause(delay);
      continue;
    }
    // Something answers HTTP/2 now: what the probe said before is over (a server without
    // the event stream stays so until its stream opens).
    if (const WatchProblem last = problem().problem;
        last != WatchProblem::kNotClusterLab && last != WatchProblem::kTensorFlow)
      setProblem({});
    auto context = std::make_shared<grpc::ClientContext>();
    context->set_wait_for_ready(true);
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::hours(24 * 365));
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) break;
      context_ = context;
    }
    WatchRequest request;
    request.set_since_seq(seen);
    auto reader = stub->Watch(context.get(), request);
    TaskEvent event;
    bool opened = false;
    while (reader->Read(&event)) {
      if (!connected_) {
        std::lock_guard<std::mutex> lock(mu_);
        connected_ = true;
      }
      if (!opened) {
        opened = true;
        setProblem({});
        fetch_info();
      }
      const int64_t gap = event.seq() - seen - 1;  // events numbered in between that never came
      seen = event.seq();
      std::lock_guard<std::mutex> lock(mu_);
      if (gap > 0) missed_ += gap;
      pending_.push_back(std::move(event));
    }
    const grpc::Status finished = reader->Finish();
    if (!opened && finished.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      const bool tensorflow = tensorflow_server();
      const std::string message = finished.error_message();
      setProblem({tensorflow ? WatchProblem::kTensorFlow : WatchProblem::kNotClusterLab,
                  address_ + ": clab.MonitorService/Watch is UNIMPLEMENTED there" +
                      (message.empty() ? std::string() : " (" + message + ")")});
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      connected_ = false;
      context_.reset();
    }
    closed_.notify_all();
    // A task that restarted numbers its events from 1 again: start over.
    seen = 0;
    if (!stopping_) pause(problem().problem == WatchProblem::kNone ? kRetryDelay : kProblemRetryDelay);
  }
}

}  // namespace clab::ui
