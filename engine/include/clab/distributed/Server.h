// One task of a cluster: a gRPC server on the task's port that hosts the master and worker
// services (and the monitor stream the studio watches). A task whose cluster address is a
// loopback address listens on loopback only. Any other address listens on all interfaces
// (a host name in the cluster may resolve to any of them) when the task is protected (TLS
// and a cluster token, ClusterAccess) or its access says insecure_listen_all; otherwise it
// listens on 127.0.0.1 only, and says so when it starts.
#pragma once

#include "clab/core/Status.h"
#include "clab/distributed/ClusterAccess.h"
#include "clab/distributed/ClusterSpec.h"
#include "clab/monitor.pb.h"
#include "tensorflow/config.pb.h"
#include "tensorflow/tensorflow_server.pb.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace clab {

struct ServerOptions {
  ClusterSpec cluster;
  std::string job_name;
  int task_index = 0;
  std::string protocol = "grpc";   // "grpc+verbs", "grpc+mpi": UNIMPLEMENTED
  tensorflow::ConfigProto config;  // default session config for sessions on this server
  bool start = true;
  // TLS, token, listening and message limit of the server and of the channels it opens to
  // the other tasks; unset: the process's default (DefaultClusterAccess()).
  std::shared_ptr<const ClusterAccess> access;
  // The directories the graphs this task runs may read and write files in (datasets,
  // checkpoints; see clab/runtime/FileAccess.h): a path elsewhere is PERMISSION_DENIED.
  // No data directory: the working directory the server is created in.
  std::vector<std::string> data_dirs;
  std::string checkpoint_dir;  // "" : none
  // Receives the server's and its master's log lines (start-up, placement, waiting for
  // tasks); unset, they go to stdout.
  std::function<void(const std::string&)> log;
};

class Server {
 public:
  // Errors: unknown job (naming the cluster's jobs), task index out of range, bad protocol,
  // port already in use (naming the address and the task).
  static StatusOr<std::unique_ptr<Server>> Create(const ServerOptions& options);
  virtual ~Server() = default;

  virtual Status Start() = 0;
  // Blocks until Stop() is called (from another thread or a signal handler's thread).
  virtual Status Join() = 0;
  // Ends every session, fails running steps with CANCELLED, closes the port.
  virtual Status Stop() = 0;
  // "grpc://host:port" with the bound port; a session in this process created on this
  // target calls the master directly, without gRPC.
  virtual std::string target() const = 0;
  virtual int bound_port() const = 0;
  virtual std::string task_name() const = 0;  // "/job:ps/replica:0/task:0"
  // The directories its graphs may use files in (canonical; ServerOptions::file_dirs).
  virtual std::vector<std::string> file_dirs() const = 0;
  // Adds an event to the task's stream (clab.MonitorService.Watch): how a monitored session
  // in this process reports its hooks, steps and checkpoints to whoever watches the task.
  virtual void Publish(const TaskEvent& event) = 0;
  // Waits until someone watches the task's events (the studio that started it), so that a
  // short program loses none of them; false at the timeout. Stop() itself gives attached
  // watchers up to a second to receive the last events.
  virtual bool WaitForWatcher(int timeout_ms) = 0;
};

// server.join() that Ctrl-C (SIGINT) or SIGTERM ends cleanly: the signal stops the server
// (running steps fail with CANCELLED, the port closes) and this returns. `on_signal` is
// told which signal arrived, before the server stops ("SIGINT"/"SIGTERM"). `on_ready` runs
// once the signals are being caught: announce "serving" there, so that whoever waits for
// that line can never signal the process before it would stop cleanly.
Status JoinUntilTerminationSignal(Server& server, const std::function<void(const char* signal_name)>& on_signal = {},
                                  const std::function<void()>& on_ready = {});

}  // namespace clab
