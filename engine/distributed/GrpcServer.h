// clab::Server over gRPC: one task's devices, its worker and its master, both services on
// one port. Stop() is a real shutdown (TensorFlow 1.x servers could only be killed): it
// fails running steps, closes sessions, closes the port and releases Join().
#pragma once

#include "clab/distributed/Server.h"
#include "clab/runtime/Device.h"
#include "clab/runtime/FileAccess.h"
#include "distributed/TrafficMeter.h"

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace grpc {
class Server;
}

namespace clab {

class EventHub;
class GrpcMasterService;
class GrpcMonitorService;
class GrpcProbeService;
class GrpcWorkerCache;
class GrpcWorkerService;
class Master;
class Worker;

class GrpcServer final : public Server {
 public:
  // `log` receives the server's and its master's lines (start-up, placement, waiting for
  // tasks); unset, they go to stdout.
  static StatusOr<std::unique_ptr<GrpcServer>> Create(const ServerOptions& options,
                                                      std::function<void(const std::string&)> log = {});
  ~GrpcServer() override;

  Status Start() override;
  Status Join() override;
  Status Stop() override;
  std::string target() const override;
  int bound_port() const override;
  // "host:port" the server listens on ("0.0.0.0:port", "127.0.0.1:port", ...).
  std::string listen_address() const;
  std::string task_name() const override { return task_name_; }
  std::vector<std::string> file_dirs() const override { return file_access_->roots(); }
  void Publish(const TaskEvent& event) override;
  bool WaitForWatcher(int timeout_ms) override;
  EventHub* events() const { return events_.get(); }

  Master* master() const { return master_.get(); }
  Worker* worker() const { return worker_.get(); }
  DeviceMgr* devices() const { return devices_.get(); }
  const FileAccess& file_access() const { return *file_access_; }

 private:
  enum class State { kCreated, kStarted, kStopped };

  GrpcServer(ServerOptions options, std::string task_name, HostPort address,
             std::function<void(const std::string&)> log);
  Status Init();
  Status BindError() const;
  // The host the server listens on, and why when that is loopback for a non-loopback task.
  std::string ListenHost() const;
  void Log(const std::string& line) const;
  // The start-up line that says where the server listens and how it is protected.
  std::string AccessLine() const;
  // Every second until the server stops: a TrafficEvent per peer whose totals changed.
  void PublishTraffic();

  const ServerOptions options_;
  const std::string task_name_;
  const HostPort address_;  // from the cluster; the port may be 0 (any free port)
  const std::function<void(const std::string&)> log_;
  const std::shared_ptr<const ClusterAccess> access_;

  std::unique_ptr<DeviceMgr> devices_;
  std::shared_ptr<const FileAccess> file_access_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<GrpcWorkerCache> worker_cache_;
  std::unique_ptr<Master> master_;
  std::unique_ptr<GrpcWorkerService> worker_service_;
  std::unique_ptr<GrpcMasterService> master_service_;
  std::unique_ptr<GrpcProbeService> probe_service_;
  std::unique_ptr<EventHub> events_;
  std::unique_ptr<GrpcMonitorService> monitor_service_;
  std::shared_ptr<TrafficMeter> traffic_ = std::make_shared<TrafficMeter>();
  std::thread traffic_thread_;
  std::unique_ptr<grpc::Server> server_;

  mutable std::mutex mu_;
  std::condition_variable stopped_cv_;
  State state_ = State::kCreated;
  bool shut_down_ = false;  // the port is closed: Join returns
  int bound_port_ = 0;
  std::string target_;
};

}  // namespace clab
