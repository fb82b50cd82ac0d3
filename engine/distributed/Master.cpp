#include "distributed/Master.h"

#include "clab/core/DeviceName.h"
#include "clab/core/ExceptionStatus.h"
#include "core/LogLine.h"
#include "distributed/CallThreads.h"
#include "distributed/MasterSession.h"
#include "distributed/TaskCallBatch.h"
#include "distributed/TaskDiscovery.h"

#include <absl/strings/ascii.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace clab {
namespace {

// A closing client waits this long for its workers to drop the session's graphs.
constexpr int64_t kCloseTimeoutMs = 5000;
// Server shutdown closes every session but cannot wait on unreachable tasks for long.
constexpr int64_t kShutdownCloseTimeoutMs = 2000;
// ListDevices without a session asks every task; a task that does not answer in this time
// is left out of the answer rather than holding it up.
constexpr int64_t kListDevicesWaitMs = 1000;
// Enough to tell "closed" from "never existed" for a client that closes and runs again.
constexpr size_t kRememberedClosedSessions = 4096;
// Open sessions a master keeps: each holds its graph and plans, and a client that never
// closes its sessions would otherwise grow the task without end. A training cluster opens
// one per worker process.
constexpr size_t kMaxOpenSessions = 1024;

std::string NewSessionHandle() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(engine()));
  return text;
}

}  // namespace

struct Master::Impl {
  MasterOptions options;
  MasterContext context;
  std::atomic<bool> stopping{false};

  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<MasterSession>> sessions;
  std::unordered_set<std::string> closed;
  std::deque<std::string> closed_order;

  // Plans built off the caller's thread (RunStepAsync) hold the master until they finish.
  CallThreads builders;

  void Log(const std::string& line) const { WriteLogLine(options.log, line); }

  StatusOr<std::shared_ptr<MasterSession>> Find(const std::string& handle) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = sessions.find(handle);
    if (it != sessions.end()) return it->second;
    if (closed.count(handle))
      return errors::Aborted("Session ", handle, " is not found: it was closed, or the master of ", options.task_name,
                             " was reset.");
    if (stopping)
      return errors::Aborted("Session ", handle, " is not found: the server of ", options.task_name, " is stopping.");
    return errors::Aborted("Session ", handle, " is not found. The master of ", options.task_name,
                           " was probably restarted; create a new session.");
  }

  // Runs `work` on a thread of its own; the master waits for such threads before it goes.
  // When none can be had, `done` (kept aside for this) gets the reason instead.
  void OffThread(std::string_view what, std::shared_ptr<std::function<void(const Status&)>> done,
                 std::function<void()> work) {
    const Status started = builders.Start(what, std::move(work));
    if (!started.ok()) (*done)(started);
  }

  Status TooManySessions() const {
    return errors::ResourceExhausted("The master of ", options.task_name, " already holds ", kMaxOpenSessions,
                                     " open sessions, the most it keeps: close sessions that are done "
                                     "(CloseSession) and try again");
  }

  void RememberClosed(const std::string& handle) {
    if (!closed.insert(handle).second) return;
    closed_order.push_back(handle);
    if (closed_order.size() > kRememberedClosedSessions) {
      closed.erase(closed_order.front());
      closed_order.pop_front();
    }
  }
};

Master::Master(MasterOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->context.task_name = impl_->options.task_name;
  impl_->context.cluster = impl_->options.cluster;
  impl_->context.workers = impl_->options.workers;
  impl_->context.log = [impl = impl_.get()](const std::string& line) { impl->Log(line); };
  impl_->context.stopping = &impl_->stopping;
}

Master::~Master() {
  CloseAll();
  impl_->builders.WaitIdle();
}

Status Master::CreateSession(const tensorflow::CreateSessionRequest& request,
                             tensorflow::CreateSessionResponse* response, CallCancellation* cancellation) {
  if (impl_->stopping)
    return errors::Unavailable("The server of ", impl_->options.task_name, " is stopping; no new sessions");
  // The server's default config, overridden field by field by the client's; filters are
  // replaced rather than appended, since they select.
  tensorflow::ConfigProto config = impl_->options.default_config;
  if (request.config().device_filters_size() > 0) config.clear_device_filters();
  config.MergeFrom(request.config());
  if (config.use_per_session_threads())
    return errors::InvalidArgument("Distributed session does not support session thread pool options.");

  std::string handle;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->sessions.size() >= kMaxOpenSessions) return impl_->TooManySessions();
    do handle = NewSessionHandle();
    while (impl_->sessions.count(handle) || impl_->closed.count(handle));
  }
  StatusOr<std::shared_ptr<MasterSession>> created =
      MasterSession::Create(handle, config, &impl_->context, request.graph_def(), cancellation);
  if (!created.ok()) {
    // Nobody hears the reply of a cancelled call: the log says why the wait ended.
    if (absl::IsCancelled(created.status())) impl_->Log(std::string(created.status().message()));
    return created.status();
  }
  std::shared_ptr<MasterSession> session = *std::move(created);
  impl_->Log(StrCat("Start master session ", handle, " with config: ", config.ShortDebugString()));
  bool full = false;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    // Sessions created side by side may have passed the check above together.
    full = impl_->sessions.size() >= kMaxOpenSessions;
    if (!full) impl_->sessions.emplace(handle, session);
  }
  if (full) {
    session->Close(kCloseTimeoutMs).IgnoreError();
    return impl_->TooManySessions();
  }
  if (impl_->stopping) {
    // The server began stopping while this session was starting: CloseAll missed it.
    tensorflow::CloseSessionRequest close;
    close.set_session_handle(handle);
    CloseSession(close).IgnoreError();
    return errors::Unavailable("The server of ", impl_->options.task_name, " is stopping; no new sessions");
  }
  response->set_session_handle(handle);
  response->set_graph_version(session->graph_version());
  return OkStatus();
}

Status Master::ExtendSession(const tensorflow::ExtendSessionRequest& request,
                             tensorflow::ExtendSessionResponse* response, CallCancellation* cancellation) {
  CLAB_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> session, impl_->Find(request.session_handle()));
  return session->Extend(request, response, cancellation);
}

namespace {
Status RunStepAndWait(const std::shared_ptr<MasterSession>& session, const tensorflow::RunStepRequest& request,
                      const std::vector<Tensor>* feed_values, tensorflow::RunStepResponse* response,
                      std::vector<Tensor>* outputs) {
  CLAB_ASSIGN_OR_RETURN(std::shared_ptr<const StepPlan> plan, session->GetOrBuildPlan(request));
  std::promise<Status> finished;
  session->RunStep(std::move(plan), request, feed_values, response, outputs,
                   [&finished](const Status& status) { finished.set_value(status); });
  return finished.get_future().get();
}

// One call of a partial run: checked against the run, then run as a step of its own.
Status RunPartialStep(const std::shared_ptr<MasterSession>& session, const tensorflow::RunStepRequest& request,
                      tensorflow::RunStepResponse* response) {
  tensorflow::RunStepRequest step;
  bool run_needed = false;
  bool last = false;
  Status status = session->partial_runs().Prepare(request, *session->graph_def(), &step, &run_needed, &last);
  if (!status.ok()) return status;
  if (run_needed) status = RunStepAndWait(session, step, nullptr, response, nullptr);
  session->partial_runs().Finish(request.partial_run_handle(), status, last);
  return status;
}
}  // namespace

void Master::RunStepAsync(const tensorflow::RunStepRequest& request, tensorflow::RunStepResponse* response,
                          std::function<void(const Status&)> done, CallCancellation* cancellation) {
  auto session = impl_->Find(request.session_handle());
  if (!session.ok()) return done(session.status());
  if (!request.partial_run_handle().empty()) {
    auto shared_done = std::make_shared<std::function<void(const Status&)>>(std::move(done));
    impl_->OffThread("RunStep (a partial run)", shared_done,
                     [session = *std::move(session), &request, response, shared_done] {
                       Status status;
                       try {
                         status = RunPartialStep(session, request, response);
                       } catch (...) {
                         status = CurrentExceptionStatus("RunStep (a partial run)");
                       }
                       (*shared_done)(status);
                     });
    return;
  }
  if (auto plan = (*session)->FindPlan(request)) {
    (*session)->RunStep(std::move(plan), request, nullptr, response, nullptr, std::move(done), cancellation);
    return;
  }
  // Building a plan waits on every worker's RegisterGraph; the caller's thread (a gRPC
  // callback thread) must not block on other calls, so a new signature is built aside.
  auto shared_done = std::make_shared<std::function<void(const Status&)>>(std::move(done));
  impl_->OffThread("RunStep (building the step's plan)", shared_done,
                   [session = *std::move(session), &request, response, shared_done, cancellation]() mutable {
                     // `done` is called once: by the step, or here when building the plan failed or threw.
                     auto done = std::move(*shared_done);
                     StatusOr<std::shared_ptr<const StepPlan>> plan;
                     try {
                       plan = session->GetOrBuildPlan(request);
                     } catch (...) {
                       plan = CurrentExceptionStatus("RunStep (building the step's plan)");
                     }
                     if (plan.ok()) {
                       session->RunStep(*std::move(plan), request, nullptr, response, nullptr, std::move(done),
                                        cancellation);
                     } else {
                       done(plan.status());
                     }
                   });
}

Status Master::RunStep(const tensorflow::RunStepRequest& request, tensorflow::RunStepResponse* response) {
  CLAB_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> session, impl_->Find(request.session_handle()));
  if (!request.partial_run_handle().empty()) return RunPartialStep(session, request, response);
  return RunStepAndWait(session, request, nullptr, response, nullptr);
}

Status Master::PartialRunSetup(const tensorflow::PartialRunSetupRequest& request,
                               tensorflow::PartialRunSetupResponse* response) {
  CLAB_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> session, impl_->Find(request.session_handle()));
  // The whole run's signature is compiled and registered now, so that a name not in the
  // graph or an impossible placement fails here, as in TensorFlow.
  tensorflow::RunStepRequest whole;
  whole.set_session_handle(request.session_handle());
  for (const std::string& feed : request.feed()) whole.add_feed()->set_name(feed);
  *whole.mutable_fetch() = request.fetch();
  *whole.mutable_target() = request.target();
  CLAB_RETURN_IF_ERROR(session->GetOrBuildPlan(whole).status());
  response->set_partial_run_handle(session->partial_runs().Setup(request));
  return OkStatus();
}

Status Master::MakeCallable(const tensorflow::MakeCallableRequest& request,
                            tensorflow::MakeCallableResponse* response) {
  CLAB_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> session, impl_->Find(request.session_handle()));
  CLAB_RETURN_IF_ERROR(CallableTable::CheckSupported(request.options()));
  // Compiled and registered now; RunCallable then only runs.
  tensorflow::RunStepRequest signature;
  signature.set_session_handle(request.session_handle());
  for (const std::string& feed : request.options().feed()) signature.add_feed()->set_name(feed);
  *signature.mutable_fetch() = request.options().fetch();
  *signature.mutable_target() = request.options().target();
  CLAB_RETURN_IF_ERROR(session->GetOrBuildPlan(signature).status());
  response->set_handle(session->callables().Add(request.options()));
  return OkStatus();
}

void Master::RunCallableAsync(const tensorflow::RunCallableRequest& request, tensorflow::RunCallableResponse* response,
                              std::function<void(const Status&)> done) {
  auto session = impl_->Find(request.session_handle());
  if (!session.ok()) return done(session.status());
  StatusOr<tensorflow::CallableOptions> options = (*session)->callables().Find(request.handle());
  if (!options.ok()) return done(options.status());
  struct Call {
    tensorflow::RunStepRequest step;
    tensorflow::RunStepResponse result;
  };
  auto call = std::make_shared<Call>();
  StatusOr<tensorflow::RunStepRequest> step = CallableTable::StepRequest(*options, request);
  if (!step.ok()) return done(step.status());
  call->step = *std::move(step);
  RunStepAsync(call->step, &call->result, [call, response, done = std::move(done)](const Status& status) {
    if (status.ok()) {
      for (tensorflow::NamedTensorProto& fetched : *call->result.mutable_tensor())
        response->add_fetch()->Swap(fetched.mutable_tensor());
      response->mutable_metadata()->Swap(call->result.mutable_metadata());
    }
    done(status);
  });
}

Status Master::ReleaseCallable(const tensorflow::ReleaseCallableRequest& request) {
  CLAB_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> session, impl_->Find(request.session_handle()));
  session->callables().Release(request.handle());
  return OkStatus();
}

Status Master::RunStepWithTensors(const tensorflow::RunStepRequest& request, const std::vector<Tensor>& feeds,
                                  tensorflow::RunStepResponse* response, std::vector<Tensor>* outputs) {
  if (static_cast<size_t>(request.feed_size()) != feeds.size())
    return errors::InvalidArgument("RunStep names ", request.feed_size(), " fed tensor(s) but ", feeds.size(),
                                   " were given");
  CLAB_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> session, impl_->Find(request.session_handle()));
  return RunStepAndWait(session, request, &feeds, response, outputs);
}

Status Master::CloseSession(const tensorflow::CloseSessionRequest& request) {
  std::shared_ptr<MasterSession> session;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->sessions.find(request.session_handle());
    if (it == impl_->sessions.end()) {
      // Closing twice is harmless; closing what never existed is worth saying.
      if (impl_->closed.count(request.session_handle())) return OkStatus();
      return errors::Aborted("Session ", request.session_handle(), " is not found on the master of ",
                             impl_->options.task_name, ".");
    }
    session = std::move(it->second);
    impl_->sessions.erase(it);
    impl_->RememberClosed(request.session_handle());
  }
  return session->Close(kCloseTimeoutMs);
}

Status Master::ListDevices(const tensorflow::ListDevicesRequest& request, tensorflow::ListDevicesResponse* response) {
  std::vector<tensorflow::DeviceAttributes> devices;
  if (!request.session_handle().empty()) {
    auto session = impl_->Find(request.session_handle());
    // TensorFlow's master answers INVALID_ARGUMENT here (ABORTED elsewhere).
    if (!session.ok()) return errors::InvalidArgument(session.status().message());
    devices = (*session)->devices();
  } else {
    std::vector<std::string> tasks;
    for (const auto& [task, address] : impl_->options.cluster.Tasks()) tasks.push_back(task);
    if (tasks.empty()) tasks.push_back(impl_->options.task_name);
    TaskDiscoveryOptions discovery;
    discovery.workers = impl_->options.workers;
    discovery.deadline_ms = kListDevicesWaitMs;
    discovery.log_interval_ms = kListDevicesWaitMs * 2;  // no "still waiting" lines for a short look
    discovery.waiter = "ListDevices";
    discovery.log = impl_->context.log;
    discovery.stopping = &impl_->stopping;
    discovery.partial_ok = true;
    CLAB_ASSIGN_OR_RETURN(DiscoveredDevices found, DiscoverTaskDevices(tasks, discovery));
    for (auto& [task, attributes] : found.by_task) devices.insert(devices.end(), attributes.begin(), attributes.end());
  }
  for (tensorflow::DeviceAttributes& device : devices) {
    const bool local = DeviceName::TaskOf(device.name()) == impl_->options.task_name;
    *(local ? response->add_local_device() : response->add_remote_device()) = std::move(device);
  }
  return OkStatus();
}

Status Master::Reset(const tensorflow::ResetRequest& request) {
  // Reset abandons every session of this master, as TensorFlow's does.
  std::vector<std::shared_ptr<MasterSession>> sessions;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    for (auto& [handle, session] : impl_->sessions) {
      sessions.push_back(session);
      impl_->RememberClosed(handle);
    }
    impl_->sessions.clear();
  }
  for (auto& session : sessions) session->Close(kCloseTimeoutMs).IgnoreError();

  std::vector<DeviceName> filters;
  for (const std::string& filter : request.device_filters()) {
    CLAB_ASSIGN_OR_RETURN(DeviceName parsed, DeviceName::Parse(filter));
    filters.push_back(std::move(parsed));
  }
  CleanupOtherTasks(request, filters);
  DeviceMgr* local = impl_->options.local_devices;
  if (local == nullptr) return OkStatus();
  for (Device* device : local->devices()) {
    if (!filters.empty() && std::none_of(filters.begin(), filters.end(),
                                         [&](const DeviceName& f) { return f.Matches(device->parsed_name()); }))
      continue;
    if (request.container_size() == 0) {
      device->resource_mgr()->Clear();
    } else {
      for (const std::string& container : request.container()) device->resource_mgr()->Clear(&container);
    }
  }
  return OkStatus();
}

void Master::CleanupOtherTasks(const tensorflow::ResetRequest& request, const std::vector<DeviceName>& filters) {
  if (impl_->options.workers == nullptr) return;
  auto batch = TaskCallBatch<tensorflow::CleanupAllRequest, tensorflow::CleanupAllResponse>::Create();
  for (const auto& [task, address] : impl_->options.cluster.Tasks()) {
    if (task == impl_->options.task_name) continue;
    auto name = DeviceName::Parse(task);
    if (!name.ok()) continue;
    // A filter selects a task when its job, replica and task parts match.
    const bool selected = filters.empty() || std::any_of(filters.begin(), filters.end(), [&](DeviceName filter) {
                            filter.has_type = false;
                            filter.has_id = false;
                            return filter.Matches(*name);
                          });
    if (!selected) continue;
    auto worker = impl_->options.workers->GetWorker(task);
    if (!worker.ok()) continue;
    *batch->Add(task, *worker).request.mutable_container() = request.container();
  }
  batch->IssueAll([](WorkerInterface* worker, const auto& call, auto* response, WorkerInterface::Done done) {
    worker->CleanupAllAsync(call, response, kCloseTimeoutMs, std::move(done));
  });
  // An unreachable task costs at most the timeout; what it holds is then its own to drop.
  if (!batch->Wait(kCloseTimeoutMs)) impl_->Log("Reset: CleanupAll did not answer in time on every task");
  if (Status failed = batch->FirstError(); !failed.ok())
    impl_->Log(StrCat("Reset could not clear every task's containers: ", failed.message()));
}

void Master::CloseAll() {
  impl_->stopping = true;
  std::vector<std::shared_ptr<MasterSession>> sessions;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    for (auto& [handle, session] : impl_->sessions) {
      sessions.push_back(session);
      impl_->RememberClosed(handle);
    }
    impl_->sessions.clear();
  }
  // Concurrently: each close may wait on an unreachable task.
  std::vector<std::thread> closers;
  for (auto& session : sessions)
    closers.emplace_back([session] { session->Close(kShutdownCloseTimeoutMs).IgnoreError(); });
  for (std::thread& closer : closers) closer.join();
}

// ---------------------------------------------------------------------------------------
// Masters of this process, by target.

namespace {

struct LocalMasters {
  std::mutex mu;
  std::map<std::string, Master*> by_target;
};

LocalMasters& Registry() {
  static LocalMasters* const registry = new LocalMasters;
  return *registry;
}

// "grpc://127.0.0.1:2222", "grpc://localhost:2222" and "localhost:2222" name one server:
// loopback hosts are one host.
std::string NormalizeTarget(const std::string& target) {
  std::string_view address = target;
  constexpr std::string_view kScheme = "grpc://";
  if (address.substr(0, kScheme.size()) == kScheme) address.remove_prefix(kScheme.size());
  auto parsed = HostPort::Parse(address);
  if (!parsed.ok()) return target;
  if (parsed->IsLoopback()) return StrCat("localhost:", parsed->port);
  return absl::AsciiStrToLower(parsed->ToString());
}

}  // namespace

void RegisterLocalMaster(const std::string& target, Master* master) {
  LocalMasters& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mu);
  registry.by_target[NormalizeTarget(target)] = master;
}

void UnregisterLocalMaster(const std::string& target) {
  LocalMasters& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mu);
  registry.by_target.erase(NormalizeTarget(target));
}

Master* FindLocalMaster(const std::string& target) {
  LocalMasters& registry = Registry();
  const std::string key = NormalizeTarget(target);
  std::lock_guard<std::mutex> lock(registry.mu);
  auto it = registry.by_target.find(key);
  return it == registry.by_target.end() ? nullptr : it->second;
}

}  // namespace clab
