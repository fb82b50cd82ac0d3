// One asynchronous worker call per task, issued together and awaited together: how the
// master registers graphs, creates and deletes worker sessions. The batch owns every
// request and response and is kept alive by the calls in flight, so a caller that stops
// waiting (a deadline) leaves nothing dangling.
#pragma once

#include "clab/core/Status.h"
#include "distributed/WorkerInterface.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace clab {

template <typename Request, typename Response>
class TaskCallBatch : public std::enable_shared_from_this<TaskCallBatch<Request, Response>> {
 public:
  struct Call {
    std::string task;
    WorkerInterface* worker = nullptr;
    Request request;
    Response response;
    Status status;
    bool done = false;
  };
  using IssueFn = std::function<void(WorkerInterface*, const Request&, Response*, WorkerInterface::Done)>;

  static std::shared_ptr<TaskCallBatch> Create() { return std::shared_ptr<TaskCallBatch>(new TaskCallBatch); }

  Call& Add(std::string task, WorkerInterface* worker) {
    calls_.push_back(std::make_unique<Call>());
    calls_.back()->task = std::move(task);
    calls_.back()->worker = worker;
    return *calls_.back();
  }
  size_t size() const { return calls_.size(); }
  Call& call(size_t i) { return *calls_[i]; }

  // Starts every call; `issue` runs once per call, on this thread.
  void IssueAll(const IssueFn& issue) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      pending_ = static_cast<int>(calls_.size());
    }
    auto self = this->shared_from_this();
    for (auto& call : calls_) {
      Call* c = call.get();
      issue(c->worker, c->request, &c->response, [self, c](const Status& status) {
        std::lock_guard<std::mutex> lock(self->mu_);
        c->status = status;
        c->done = true;
        if (--self->pending_ == 0) self->cv_.notify_all();
      });
    }
  }

  // True when every call finished; `timeout_ms` < 0 waits as long as it takes.
  bool Wait(int64_t timeout_ms = -1) {
    std::unique_lock<std::mutex> lock(mu_);
    if (timeout_ms < 0) {
      cv_.wait(lock, [this] { return pending_ == 0; });
      return true;
    }
    return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [this] { return pending_ == 0; });
  }

  // The first failed call's status, its message prefixed with the task that sent it.
  Status FirstError() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& call : calls_) {
      if (call->done && !call->status.ok())
        return Status(call->status.code(), StrCat("From ", call->task, ": ", call->status.message()));
    }
    return OkStatus();
  }

  bool Succeeded(size_t i) {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_[i]->done && calls_[i]->status.ok();
  }

 private:
  TaskCallBatch() = default;

  std::vector<std::unique_ptr<Call>> calls_;
  std::mutex mu_;
  std::condition_variable cv_;
  int pending_ = 0;
};

}  // namespace clab
