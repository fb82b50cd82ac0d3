// One task of a test cluster inside the test process: its devices, its Worker and a gRPC
// server on a free loopback port serving the worker service.
#pragma once

#include "clab/runtime/Device.h"
#include "distributed/GrpcChannels.h"
#include "distributed/GrpcWorkerCache.h"
#include "distributed/GrpcWorkerService.h"
#include "distributed/Worker.h"

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>

namespace clab::testing {

class TaskFixture {
 public:
  static std::unique_ptr<TaskFixture> Start(const std::string& task_name, const tensorflow::ConfigProto& config = {}) {
    std::unique_ptr<TaskFixture> task(new TaskFixture);
    task->name = task_name;
    auto devices = DeviceMgr::CreateLocal(task_name, config);
    if (!devices.ok()) return nullptr;
    task->devices = std::move(devices).value();
    TaskFixture* raw = task.get();
    task->worker =
        std::make_unique<Worker>(task_name, task->devices.get(),
                                 GrpcWorkerCacheFactory(ClusterSpec(), task_name, [raw] { return raw->worker.get(); }));
    task->service = std::make_unique<GrpcWorkerService>(task->worker.get());
    grpc::ServerBuilder builder;
    ConfigureServerBuilder(builder);
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &task->port);
    builder.RegisterService(task->service.get());
    task->server = builder.BuildAndStart();
    if (!task->server || task->port == 0) return nullptr;
    return task;
  }

  ~TaskFixture() {
    if (server) server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server.reset();
    worker.reset();
    service.reset();
  }

  std::string address() const { return "127.0.0.1:" + std::to_string(port); }
  Device* cpu() const { return devices->host_cpu(); }

  std::string name;
  std::unique_ptr<DeviceMgr> devices;
  std::unique_ptr<Worker> worker;
  std::unique_ptr<GrpcWorkerService> service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;

 private:
  TaskFixture() = default;
};

// Waits for an asynchronous call's status.
class StatusWaiter {
 public:
  std::function<void(const Status&)> callback() {
    return [promise = promise_](const Status& status) { promise->set_value(status); };
  }
  // DEADLINE_EXCEEDED (from the test, not the code under test) when nothing came in time.
  Status Wait(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    if (future_.wait_for(timeout) != std::future_status::ready)
      return absl::DeadlineExceededError("the test gave up waiting for the call");
    return future_.get();
  }
  bool Ready() const { return future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }

 private:
  std::shared_ptr<std::promise<Status>> promise_ = std::make_shared<std::promise<Status>>();
  std::shared_future<Status> future_ = promise_->get_future().share();
};

}  // namespace clab::testing
