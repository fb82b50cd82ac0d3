// clab.MonitorService on every task's server: Watch streams the task's EventHub (history
// first, then live, until the watcher leaves or the server stops), Publish adds a client's
// events (a monitored session elsewhere reporting its hooks), GetTaskInfo says what the task
// is. Watch is a synchronous streaming method: each watcher holds one of gRPC's server
// threads while it waits, which suits the handful of watchers a task has (the studio, a
// `clab watch`).
#pragma once

#include "clab/monitor.grpc.pb.h"
#include "distributed/EventHub.h"

#include <functional>
#include <vector>

namespace clab {

class GrpcMonitorService final : public MonitorService::Service {
 public:
  using DevicesFn = std::function<std::vector<tensorflow::DeviceAttributes>()>;
  // `hub` outlives the service; `devices` lists the task's devices for GetTaskInfo.
  GrpcMonitorService(EventHub* hub, DevicesFn devices);

  grpc::Status Watch(grpc::ServerContext* context, const WatchRequest* request,
                     grpc::ServerWriter<TaskEvent>* writer) override;
  grpc::Status Publish(grpc::ServerContext* context, const PublishRequest* request, PublishResponse* response) override;
  grpc::Status GetTaskInfo(grpc::ServerContext* context, const TaskInfoRequest* request,
                           TaskInfoResponse* response) override;

 private:
  EventHub* const hub_;
  const DevicesFn devices_;
  const double start_time_;
};

}  // namespace clab
