#include "distributed/GrpcServer.h"

#include "clab/core/DeviceName.h"
#include "core/LogLine.h"
#include "distributed/EventHub.h"
#include "distributed/GrpcCallbackQueue.h"
#include "distributed/GrpcChannels.h"
#include "distributed/GrpcMasterService.h"
#include "distributed/GrpcMonitorService.h"
#include "distributed/GrpcProbeService.h"
#include "distributed/GrpcWorkerCache.h"
#include "distributed/GrpcWorkerService.h"
#include "distributed/Master.h"
#include "distributed/TrafficMeter.h"
#include "distributed/Worker.h"

#include <absl/strings/str_join.h>
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace clab {
namespace {

// Calls still running when the server stops get this long to finish before gRPC cancels
// them; steps were already aborted, so they finish at once.
constexpr int kShutdownGraceMs = 500;
// How long a stopping server waits for its watchers to receive its last events.
constexpr int kWatcherFlushMs = 1000;
// How often the bytes exchanged with each peer are published (when they changed).
constexpr int kTrafficIntervalMs = 1000;

// A loopback task is reachable only from this host, so it listens there only; any other
// address may reach this host through any interface, which only a protected task (or one
// told to, --insecure_listen_all) listens on.
std::string ListenHostFor(const HostPort& address, const ClusterAccess& access) {
  if (!address.IsLoopback()) return access.secured() || access.insecure_listen_all ? "0.0.0.0" : "127.0.0.1";
  if (address.host == "localhost") return "127.0.0.1";
  return address.host;
}

std::string JoinHostPort(const std::string& host, int port) {
  return host.find(':') != std::string::npos ? StrCat("[", host, "]:", port) : StrCat(host, ":", port);
}

// Whether something already listens on host:port, asked the way gRPC binds (with
// SO_REUSEADDR, so a port in TIME_WAIT is not mistaken for one in use).
bool PortInUse(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  int rc;
  if (v6) {
    sockaddr_in6 addr{};
    addr.sin6_family = AF_INET6;
    addr.sin6_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET6, host.c_str(), &addr.sin6_addr);
    rc = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  } else {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
    rc = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  }
  const int error = errno;
  ::close(fd);
  return rc != 0 && error == EADDRINUSE;
}

Status CheckProtocol(const std::string& protocol) {
  if (protocol == "grpc") return OkStatus();
  if (protocol == "grpc+verbs" || protocol == "grpc+mpi" || protocol == "grpc+gdr")
    return errors::Unimplemented("Protocol '", protocol,
                                 "' is not supported: ClusterLab moves tensors over gRPC only (TensorFlow's "
                                 "contrib RDMA/MPI/GPUDirect transports are not implemented). Use protocol 'grpc'.");
  return errors::NotFound("No server for protocol '", protocol, "'. Supported protocols: [ grpc ]");
}

}  // namespace

StatusOr<std::unique_ptr<Server>> Server::Create(const ServerOptions& options) {
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<GrpcServer> server, GrpcServer::Create(options, options.log));
  return std::unique_ptr<Server>(std::move(server));
}

StatusOr<std::unique_ptr<GrpcServer>> GrpcServer::Create(const ServerOptions& options,
                                                         std::function<void(const std::string&)> log) {
  CLAB_RETURN_IF_ERROR(CheckProtocol(options.protocol));
  HoldGrpcCallbackQueue();
  const ClusterSpec& cluster = options.cluster;
  const std::string jobs = absl::StrJoin(cluster.jobs(), ", ");
  if (cluster.empty())
    return errors::InvalidArgument("The cluster has no jobs: a server needs a cluster that contains its own task");
  ServerOptions effective = options;
  if (effective.job_name.empty()) {
    // As TensorFlow: a cluster of one job needs no job name.
    if (cluster.jobs().size() != 1)
      return errors::InvalidArgument("Must specify an explicit job_name: the cluster has jobs ", jobs);
    effective.job_name = cluster.jobs().front();
  }
  if (!cluster.HasJob(effective.job_name))
    return errors::InvalidArgument("Job \"", effective.job_name, "\" was not defined in cluster (its jobs: ", jobs,
                                   ")");
  StatusOr<std::string> address_text = cluster.TaskAddress(effective.job_name, effective.task_index);
  if (!address_text.ok()) {
    std::vector<std::string> indices;
    for (int task : cluster.task_indices(effective.job_name)) indices.push_back(std::to_string(task));
    return errors::InvalidArgument("Task ", effective.task_index, " was not defined in job \"", effective.job_name,
                                   "\" (its tasks: ", absl::StrJoin(indices, ", "), ")");
  }
  CLAB_ASSIGN_OR_RETURN(HostPort address, HostPort::Parse(*address_text));
  const std::string task_name = DeviceName::TaskPrefix(effective.job_name, effective.task_index);

  std::unique_ptr<GrpcServer> server(new GrpcServer(effective, task_name, address, std::move(log)));
  CLAB_RETURN_IF_ERROR(server->Init());
  if (effective.start) CLAB_RETURN_IF_ERROR(server->Start());
  return server;
}

GrpcServer::GrpcServer(ServerOptions options, std::string task_name, HostPort address,
                       std::function<void(const std::string&)> log)
    : options_(std::move(options)), task_name_(std::move(task_name)), address_(std::move(address)),
      log_(std::move(log)), access_(options_.access ? options_.access : DefaultClusterAccess()) {}

std::string GrpcServer::ListenHost() const { return ListenHostFor(address_, *access_); }

Status GrpcServer::Init() {
  events_ = std::make_unique<EventHub>(task_name_);
  CLAB_ASSIGN_OR_RETURN(devices_, DeviceMgr::CreateLocal(task_name_, options_.config));
  // The graphs come from clients: their file ops stay inside the task's directories.
  CLAB_ASSIGN_OR_RETURN(FileAccess access, FileAccess::Create(options_.data_dirs, options_.checkpoint_dir));
  file_access_ = std::make_shared<const FileAccess>(std::move(access));
  for (Device* device : devices_->devices()) device->set_file_access(file_access_);
  ChannelSettings channels;
  channels.traffic = traffic_;
  channels.access = access_;
  worker_ = std::make_unique<Worker>(task_name_, devices_.get(),
                                     GrpcWorkerCacheFactory(
                                         options_.cluster, task_name_, [this] { return worker_.get(); }, channels));
  worker_cache_ = std::make_unique<GrpcWorkerCache>(options_.cluster, task_name_, worker_.get(), channels);

  MasterOptions master;
  master.task_name = task_name_;
  master.cluster = options_.cluster;
  master.workers = worker_cache_.get();
  master.default_config = options_.config;
  master.local_devices = devices_.get();
  // The master's lines (session start, placement, waiting for tasks) go to the log and,
  // as events, to whoever watches this task.
  master.log = [this](const std::string& line) { Log(line); };
  master_ = std::make_unique<Master>(std::move(master));

  worker_service_ = std::make_unique<GrpcWorkerService>(worker_.get());
  master_service_ = std::make_unique<GrpcMasterService>(master_.get());
  probe_service_ = std::make_unique<GrpcProbeService>();
  monitor_service_ = std::make_unique<GrpcMonitorService>(events_.get(), [this] {
    std::vector<tensorflow::DeviceAttributes> attributes;
    for (const Device* device : devices_->devices()) attributes.push_back(device->attributes());
    return attributes;
  });
  return OkStatus();
}

GrpcServer::~GrpcServer() {
  Stop().IgnoreError();
  // Services before what they call; the gRPC server before its services.
  server_.reset();
  master_service_.reset();
  probe_service_.reset();
  monitor_service_.reset();
  worker_service_.reset();
  master_.reset();
  worker_cache_.reset();
  worker_.reset();
  devices_.reset();
}

void GrpcServer::Publish(const TaskEvent& event) { events_->Publish(event); }

bool GrpcServer::WaitForWatcher(int timeout_ms) {
  return events_->WaitForWatcher(std::chrono::milliseconds(timeout_ms));
}

void GrpcServer::Log(const std::string& line) const {
  if (events_) events_->Publish(EventForLogLine(line));
  WriteLogLine(log_, line);
}

Status GrpcServer::BindError() const {
  const std::string listen = JoinHostPort(ListenHost(), address_.port);
  if (PortInUse(ListenHost(), address_.port))
    return errors::Unavailable("Could not start gRPC server for ", task_name_, " on ", listen,
                               ": the port is already in use (another server, or another program, listens "
                               "there). Stop it, or give this task another port in the cluster spec.");
  return errors::Unknown("Could not start gRPC server for ", task_name_, " on ", listen,
                         ": gRPC could not listen there (see its log above); check that the address belongs "
                         "to this host.");
}

Status GrpcServer::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == State::kStopped) return errors::FailedPrecondition("Server has stopped.");
  if (state_ == State::kStarted) {
    Log(StrCat("Server already started (target: ", target_, ")"));
    return OkStatus();
  }

  grpc::ServerBuilder builder;
  ChannelSettings settings;
  settings.access = access_;
  ConfigureServerBuilder(builder, settings);
  // Two servers on one port would split the calls between them at random.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  int port = 0;
  builder.AddListeningPort(JoinHostPort(ListenHost(), address_.port), ClusterServerCredentials(*access_), &port);
  builder.RegisterService(worker_service_.get());
  builder.RegisterService(master_service_.get());
  builder.RegisterService(probe_service_.get());
  builder.RegisterService(monitor_service_.get());
  server_ = builder.BuildAndStart();
  if (!server_ || port == 0) {
    server_.reset();
    return BindError();
  }
  bound_port_ = port;
  target_ = StrCat("grpc://", JoinHostPort(address_.host, bound_port_));
  state_ = State::kStarted;

  for (const auto& [job, tasks] : options_.cluster.all_jobs()) {
    std::vector<std::string> entries;
    for (const auto& [index, address] : tasks) {
      const bool own = DeviceName::TaskPrefix(job, index) == task_name_;
      entries.push_back(StrCat(index, " -> ", own ? JoinHostPort(address_.host, bound_port_) : address));
    }
    Log(StrCat("Initialize GrpcChannelCache for job ", job, " -> {", absl::StrJoin(entries, ", "), "}"));
  }
  RegisterLocalMaster(target_, master_.get());
  Log(StrCat("Started server with target: ", target_));
  Log(AccessLine());
  traffic_thread_ = std::thread([this] { PublishTraffic(); });
  TaskEvent listening;
  listening.mutable_state()->set_phase(TaskState::LISTENING);
  listening.mutable_state()->set_detail(StrCat("listening at ", target_));
  events_->Publish(std::move(listening));
  return OkStatus();
}

void GrpcServer::PublishTraffic() {
  std::map<std::string, TrafficMeter::Totals> published;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopped_cv_.wait_for(lock, std::chrono::milliseconds(kTrafficIntervalMs),
                               [this] { return shut_down_ || state_ == State::kStopped; })) {
    lock.unlock();
    for (const auto& [peer, totals] : traffic_->Snapshot()) {
      if (published[peer] == totals) continue;
      published[peer] = totals;
      TaskEvent event;
      event.mutable_traffic()->set_peer(peer);
      event.mutable_traffic()->set_bytes_sent(totals.sent);
      event.mutable_traffic()->set_bytes_received(totals.received);
      events_->Publish(std::move(event));
    }
    lock.lock();
  }
}

Status GrpcServer::Join() {
  std::unique_lock<std::mutex> lock(mu_);
  stopped_cv_.wait(lock, [this] { return shut_down_; });
  return OkStatus();
}

Status GrpcServer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ == State::kStopped) return OkStatus();
    const bool started = state_ == State::kStarted;
    state_ = State::kStopped;
    if (started) UnregisterLocalMaster(target_);
  }
  // Steps first, so the sessions' graphs can be dropped and the calls of those steps end.
  TaskEvent stopping;
  stopping.mutable_state()->set_phase(TaskState::STOPPED);
  stopping.mutable_state()->set_detail("the server is stopping");
  events_->Publish(std::move(stopping));
  // Watchers get the last events (a second at most) and end, instead of holding up the
  // shutdown.
  events_->WaitDelivered(std::chrono::milliseconds(kWatcherFlushMs));
  events_->Close();
  worker_->AbortAllSteps(errors::Cancelled("The server of ", task_name_, " is stopping"));
  master_->CloseAll();
  if (server_) {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(kShutdownGraceMs));
    server_->Wait();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    shut_down_ = true;
  }
  stopped_cv_.notify_all();
  if (traffic_thread_.joinable()) traffic_thread_.join();
  return OkStatus();
}

std::string GrpcServer::AccessLine() const {
  const std::string listen = JoinHostPort(ListenHost(), bound_port_);
  if (access_->secured())
    return StrCat("Listening on ", listen, " with TLS (certificates from ", access_->tls_dir,
                  ") and the cluster token (from ", access_->token_file, ")");
  if (address_.IsLoopback()) return StrCat("Listening on ", listen, " (loopback): no TLS and no token");
  if (access_->insecure_listen_all)
    return StrCat("Listening on ", listen,
                  " (every interface) WITHOUT TLS and token (--insecure_listen_all): "
                  "anyone who reaches this host can use the cluster");
  return StrCat("Listening on ", listen,
                " only: no TLS and no token; pass --tls_dir and --token_file to protect "
                "the cluster, or --insecure_listen_all to listen on every interface without them (anyone who "
                "reaches ",
                address_.host, " could then use the cluster)");
}

std::string GrpcServer::listen_address() const {
  std::lock_guard<std::mutex> lock(mu_);
  return JoinHostPort(ListenHost(), bound_port_ != 0 ? bound_port_ : address_.port);
}

std::string GrpcServer::target() const {
  std::lock_guard<std::mutex> lock(mu_);
  return target_.empty() ? StrCat("grpc://", JoinHostPort(address_.host, address_.port)) : target_;
}

int GrpcServer::bound_port() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bound_port_ != 0 ? bound_port_ : address_.port;
}

}  // namespace clab
