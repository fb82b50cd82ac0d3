#include "distributed/MasterSession.h"

#include "clab/core/DeviceName.h"
#include "clab/graph/Graph.h"
#include "clab/runtime/FunctionLibrary.h"
#include "core/LogLine.h"
#include "distributed/TaskCallBatch.h"
#include "distributed/TaskDiscovery.h"

#include <algorithm>
#include <chrono>

namespace clab {

// Tensors up to this size that a partition sends to the master's own task ride back in
// that partition's RunGraph reply (see InlineSends.h); bigger ones keep RecvTensor.
constexpr int64_t kInlineSendBytes = 64 * 1024;
namespace {

constexpr int64_t kDefaultWaitForTasksMs = 120000;
// Registration and worker-session calls answer in milliseconds from a live task; a task
// that died after answering GetStatus fails them fast. The bound only guards a task whose
// host stopped answering altogether.
constexpr int64_t kWorkerCallTimeoutMs = 60000;

using RegisterBatch = TaskCallBatch<tensorflow::RegisterGraphRequest, tensorflow::RegisterGraphResponse>;
using DeregisterBatch = TaskCallBatch<tensorflow::DeregisterGraphRequest, tensorflow::DeregisterGraphResponse>;
using CreateBatch = TaskCallBatch<tensorflow::CreateWorkerSessionRequest, tensorflow::CreateWorkerSessionResponse>;
using DeleteBatch = TaskCallBatch<tensorflow::DeleteWorkerSessionRequest, tensorflow::DeleteWorkerSessionResponse>;

// The task part of a spec, so a filter such as "/job:ps/device:CPU:0" selects task-wise.
DeviceName TaskPart(DeviceName spec) {
  spec.has_type = false;
  spec.has_id = false;
  spec.type.clear();
  return spec;
}

int64_t ElapsedMs(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

MasterSession::MasterSession(std::string handle, tensorflow::ConfigProto config, const MasterContext* context)
    : handle_(std::move(handle)), config_(std::move(config)), context_(context) {}

MasterSession::~MasterSession() = default;

StatusOr<std::vector<std::string>> MasterSession::TasksToContact(const MasterContext& context,
                                                                 const tensorflow::ConfigProto& config,
                                                                 const tensorflow::GraphDef& graph) {
  const std::vector<std::pair<std::string, std::string>> all = context.cluster.Tasks();
  std::set<std::string> chosen = {context.task_name};
  if (config.clusterlab().contact_all_tasks()) {
    for (const auto& [task, address] : all) chosen.insert(task);
    return std::vector<std::string>(chosen.begin(), chosen.end());
  }

  std::vector<DeviceName> filters;
  for (const std::string& filter : config.device_filters()) {
    auto parsed = DeviceName::Parse(filter);
    if (!parsed.ok()) return errors::Annotate(parsed.status(), StrCat("ConfigProto.device_filters '", filter, "': "));
    filters.push_back(TaskPart(*std::move(parsed)));
  }
  auto task_name_of = [](const std::string& task) {
    auto parsed = DeviceName::Parse(task);
    return parsed.ok() ? *std::move(parsed) : DeviceName();
  };
  if (!filters.empty()) {
    for (const auto& [task, address] : all) {
      const DeviceName name = task_name_of(task);
      if (std::any_of(filters.begin(), filters.end(), [&](const DeviceName& f) { return f.Matches(name); }))
        chosen.insert(task);
    }
    return std::vector<std::string>(chosen.begin(), chosen.end());
  }

  for (int task : context.cluster.task_indices("ps")) chosen.insert(DeviceName::TaskPrefix("ps", task));
  // A task the graph names explicitly will be needed by the placer; a job without a task
  // could be placed on any of its tasks.
  for (const tensorflow::NodeDef& node : graph.node()) {
    if (node.device().empty() || node.device()[0] == '@') continue;
    auto spec = DeviceName::Parse(node.device());
    if (!spec.ok() || !spec->has_job || !context.cluster.HasJob(spec->job)) continue;
    for (int task : context.cluster.task_indices(spec->job)) {
      if (!spec->has_task || spec->task == task) chosen.insert(DeviceName::TaskPrefix(spec->job, task));
    }
  }
  return std::vector<std::string>(chosen.begin(), chosen.end());
}

StatusOr<std::shared_ptr<MasterSession>> MasterSession::Create(std::string handle, tensorflow::ConfigProto config,
                                                               const MasterContext* context,
                                                               const tensorflow::GraphDef& graph,
                                                               CallCancellation* cancellation) {
  // Validated now, so a bad graph fails at creation rather than at some later run.
  auto session_graph = std::make_shared<SessionGraph>();
  session_graph->def = graph;
  CLAB_ASSIGN_OR_RETURN(session_graph->graph, Graph::FromGraphDef(graph));
  CLAB_ASSIGN_OR_RETURN(std::vector<std::string> tasks, TasksToContact(*context, config, graph));
  std::shared_ptr<MasterSession> session(new MasterSession(std::move(handle), std::move(config), context));
  {
    MutexLock lock(session->mu_);
    session->graph_ = std::move(session_graph);
    session->devices_ = std::make_shared<const DeviceSet>();
  }
  CLAB_RETURN_IF_ERROR(session->AddTasks(tasks, cancellation));
  return session;
}

Status MasterSession::AddTasks(const std::vector<std::string>& requested, CallCancellation* cancellation) {
  std::vector<std::string> tasks;
  {
    MutexLock lock(mu_);
    for (const std::string& task : requested)
      if (!tasks_.count(task)) tasks.push_back(task);
  }
  if (tasks.empty()) return OkStatus();

  TaskDiscoveryOptions discovery;
  discovery.workers = context_->workers;
  const int64_t wait_ms = config_.clusterlab().wait_for_tasks_ms();
  discovery.deadline_ms = wait_ms == 0 ? kDefaultWaitForTasksMs : wait_ms;
  discovery.log_interval_ms = config_.clusterlab().wait_log_interval_ms();
  discovery.log = context_->log;
  discovery.stopping = context_->stopping;
  discovery.cancellation = cancellation;
  CLAB_ASSIGN_OR_RETURN(DiscoveredDevices found, DiscoverTaskDevices(tasks, discovery));

  auto batch = CreateBatch::Create();
  const tensorflow::ClusterDef cluster = context_->cluster.ToClusterDef();
  for (const std::string& task : tasks) {
    CLAB_ASSIGN_OR_RETURN(WorkerInterface * worker, context_->workers->GetWorker(task));
    auto& call = batch->Add(task, worker);
    call.request.set_session_handle(handle_);
    call.request.set_isolate_session_state(config_.isolate_session_state());
    tensorflow::ServerDef* server_def = call.request.mutable_server_def();
    *server_def->mutable_cluster() = cluster;
    auto name = DeviceName::Parse(task);
    if (name.ok()) {
      server_def->set_job_name(name->job);
      server_def->set_task_index(name->task);
    }
    server_def->set_protocol("grpc");
  }
  batch->IssueAll([](WorkerInterface* worker, const auto& request, auto* response, WorkerInterface::Done done) {
    worker->CreateWorkerSessionAsync(request, response, std::move(done));
  });
  Status status = batch->Wait(kWorkerCallTimeoutMs)
                      ? batch->FirstError()
                      : errors::Unavailable("CreateWorkerSession did not answer within ", kWorkerCallTimeoutMs,
                                            " ms on every task of ", handle_);
  if (!status.ok()) {
    // Leave nothing behind on the tasks that did create a session.
    auto cleanup = DeleteBatch::Create();
    for (size_t i = 0; i < batch->size(); ++i) {
      if (!batch->Succeeded(i)) continue;
      cleanup->Add(batch->call(i).task, batch->call(i).worker).request.set_session_handle(handle_);
    }
    cleanup->IssueAll([](WorkerInterface* worker, const auto& request, auto* response, WorkerInterface::Done done) {
      worker->DeleteWorkerSessionAsync(request, response, std::move(done));
    });
    return status;
  }

  MutexLock lock(mu_);
  auto devices = std::make_shared<DeviceSet>(*devices_);
  for (auto& [task, attributes] : found.by_task) {
    tasks_.insert(task);
    for (const tensorflow::DeviceAttributes& device : attributes) {
      devices->attributes.push_back(device);
      devices->incarnations[device.name()] = device.incarnation();
    }
  }
  // The master's own devices first (the placer's fallback), then the rest by name.
  std::stable_sort(devices->attributes.begin(), devices->attributes.end(),
                   [this](const tensorflow::DeviceAttributes& a, const tensorflow::DeviceAttributes& b) {
                     const bool a_own = DeviceName::TaskOf(a.name()) == context_->task_name;
                     const bool b_own = DeviceName::TaskOf(b.name()) == context_->task_name;
                     if (a_own != b_own) return a_own;
                     return DeviceName::TaskOf(a.name()) < DeviceName::TaskOf(b.name());
                   });
  devices->available.clear();
  for (const tensorflow::DeviceAttributes& device : devices->attributes)
    devices->available.push_back({device.name(), device.device_type()});
  devices_ = std::move(devices);
  return OkStatus();
}

int64_t MasterSession::graph_version() const {
  MutexLock lock(mu_);
  return graph_version_;
}

bool MasterSession::closed() const {
  MutexLock lock(mu_);
  return closed_;
}

std::vector<tensorflow::DeviceAttributes> MasterSession::devices() const {
  MutexLock lock(mu_);
  return devices_->attributes;
}

std::shared_ptr<const tensorflow::GraphDef> MasterSession::graph_def() const {
  MutexLock lock(mu_);
  return std::shared_ptr<const tensorflow::GraphDef>(graph_, &graph_->def);
}

Status MasterSession::Extend(const tensorflow::ExtendSessionRequest& request,
                             tensorflow::ExtendSessionResponse* response, CallCancellation* cancellation) {
  auto merged = std::make_shared<SessionGraph>();
  int64_t expected_version = 0;
  std::vector<std::string> needed;
  {
    MutexLock lock(mu_);
    if (closed_) return errors::FailedPrecondition("Session ", handle_, " is closed.");
    expected_version = graph_version_;
    // ABORTED, as in TensorFlow: the client may retry from the current version.
    if (request.current_graph_version() != expected_version)
      return errors::Aborted("ExtendSession was given graph version ", request.current_graph_version(), " but session ",
                             handle_, " is at version ", expected_version,
                             ": another client extended the graph meanwhile");

    merged->def = graph_->def;
    std::set<std::string> names;
    for (const tensorflow::NodeDef& node : merged->def.node()) names.insert(node.name());
    for (const tensorflow::NodeDef& node : request.graph_def().node()) {
      if (!names.insert(node.name()).second)
        return errors::InvalidArgument("Duplicate node name in graph: '", node.name(),
                                       "' (ExtendSession takes only nodes the session does not have yet)");
      *merged->def.add_node() = node;
    }
    if (!merged->def.has_versions() && request.graph_def().has_versions())
      *merged->def.mutable_versions() = request.graph_def().versions();
    CLAB_RETURN_IF_ERROR(FunctionLibrary::Merge(request.graph_def().library(), merged->def.mutable_library()));
    CLAB_ASSIGN_OR_RETURN(merged->graph, Graph::FromGraphDef(merged->def));

    CLAB_ASSIGN_OR_RETURN(needed, TasksToContact(*context_, config_, request.graph_def()));
    std::erase_if(needed, [this](const std::string& task)
                              ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return tasks_.count(task) > 0; });
    if (needed.empty()) {
      graph_ = std::move(merged);
      // Cached plans stay valid: new nodes can never be ancestors of old ones.
      response->set_new_graph_version(++graph_version_);
      return OkStatus();
    }
  }
  // Tasks that new nodes name are contacted first, without holding the session.
  CLAB_RETURN_IF_ERROR(AddTasks(needed, cancellation));
  MutexLock lock(mu_);
  if (graph_version_ != expected_version)
    return errors::Aborted("Session ", handle_, " was extended by another client meanwhile");
  graph_ = std::move(merged);
  response->set_new_graph_version(++graph_version_);
  return OkStatus();
}

std::string MasterSession::SignatureKey(const tensorflow::RunStepRequest& request) {
  std::vector<std::string_view> feeds;
  feeds.reserve(static_cast<size_t>(request.feed_size()));
  for (const auto& feed : request.feed()) feeds.push_back(feed.name());
  return StepSignature::Key(std::move(feeds), {request.fetch().begin(), request.fetch().end()},
                            {request.target().begin(), request.target().end()});
}

std::shared_ptr<const StepPlan> MasterSession::FindPlan(const tensorflow::RunStepRequest& request) const {
  return plans_.Find(SignatureKey(request));
}

PlacerOptions MasterSession::PlacerOptionsForSession() {
  PlacerOptions placer;
  placer.allow_soft_placement = config_.allow_soft_placement();
  placer.log_device_placement = config_.log_device_placement();
  placer.default_device = context_->task_name;
  // Each placement is said once per session, not again for every new signature. The placer
  // calls it while the plan is built, under build_mu_.
  placer.log = [this](const std::string& line) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (logged_placements_.insert(line).second) WriteLogLine(context_->log, line);
  };
  return placer;
}

StatusOr<std::shared_ptr<const StepPlan>> MasterSession::GetOrBuildPlan(const tensorflow::RunStepRequest& request) {
  if (auto plan = FindPlan(request)) return plan;
  MutexLock build_lock(build_mu_);
  if (auto plan = FindPlan(request)) return plan;

  std::shared_ptr<const SessionGraph> graph;
  std::shared_ptr<const DeviceSet> devices;
  {
    MutexLock lock(mu_);
    if (closed_) return errors::FailedPrecondition("Session ", handle_, " is closed.");
    graph = graph_;
    devices = devices_;
  }
  if (graph->def.node_size() == 0)
    return errors::FailedPrecondition(
        "The session graph is empty: create the session with a graph (or extend "
        "it) before running it");
  StepPlanInputs inputs;
  inputs.graph_def = &graph->def;
  inputs.graph = graph->graph.get();
  for (const auto& feed : request.feed()) inputs.signature.feeds.push_back(feed.name());
  inputs.signature.fetches.assign(request.fetch().begin(), request.fetch().end());
  inputs.signature.targets.assign(request.target().begin(), request.target().end());
  inputs.compile.devices = devices->available;
  inputs.compile.placer = PlacerOptionsForSession();
  inputs.compile.partition_by = PartitionBy::kTask;
  inputs.compile.incarnation_of = [&devices](const std::string& device) {
    auto it = devices->incarnations.find(device);
    return it == devices->incarnations.end() ? uint64_t{0} : it->second;
  };
  inputs.compile.stateful_placement = &stateful_placement_;
  inputs.workers = context_->workers;
  inputs.local_task = context_->task_name;
  inputs.inline_send_bytes = kInlineSendBytes;
  CLAB_ASSIGN_OR_RETURN(std::shared_ptr<StepPlan> plan, BuildStepPlan(inputs));
  CLAB_RETURN_IF_ERROR(RegisterPlan(plan.get()));

  MutexLock lock(mu_);
  if (closed_) {
    DeregisterPlan(*plan);
    return errors::FailedPrecondition("Session ", handle_, " is closed.");
  }
  return plans_.Insert(SignatureKey(request), std::move(plan));
}

Status MasterSession::RegisterPlan(StepPlan* plan) {
  auto batch = RegisterBatch::Create();
  for (const StepPlan::Partition& partition : plan->partitions) {
    auto& call = batch->Add(partition.task, partition.worker);
    call.request.set_session_handle(handle_);
    *call.request.mutable_graph_def() = partition.graph;
    *call.request.mutable_config_proto() = config_;
    for (const std::string& feed : partition.feeds) call.request.add_feed(feed);
    for (const std::string& fetch : partition.fetches) call.request.add_fetch(fetch);
    for (const std::string& target : partition.targets) call.request.add_target(target);
  }
  batch->IssueAll([](WorkerInterface* worker, const auto& request, auto* response, WorkerInterface::Done done) {
    worker->RegisterGraphAsync(request, response, std::move(done));
  });
  Status status = batch->Wait(kWorkerCallTimeoutMs) ? batch->FirstError()
                                                    : errors::Unavailable("RegisterGraph did not answer within ",
                                                                          kWorkerCallTimeoutMs, " ms on every task");
  for (size_t i = 0; i < batch->size(); ++i) {
    if (batch->Succeeded(i)) plan->partitions[i].graph_handle = batch->call(i).response.graph_handle();
  }
  if (!status.ok()) {
    DeregisterPlan(*plan);
    return status;
  }
  return OkStatus();
}

void MasterSession::DeregisterPlan(const StepPlan& plan) {
  auto batch = DeregisterBatch::Create();
  for (const StepPlan::Partition& partition : plan.partitions) {
    if (partition.graph_handle.empty()) continue;
    auto& call = batch->Add(partition.task, partition.worker);
    call.request.set_session_handle(handle_);
    call.request.set_graph_handle(partition.graph_handle);
  }
  batch->IssueAll([](WorkerInterface* worker, const auto& request, auto* response, WorkerInterface::Done done) {
    worker->DeregisterGraphAsync(request, response, std::move(done));
  });
}

void MasterSession::RunStep(std::shared_ptr<const StepPlan> plan, const tensorflow::RunStepRequest& request,
                            const std::vector<Tensor>* feed_values, tensorflow::RunStepResponse* response,
                            std::vector<Tensor>* outputs, MasterStep::Done done, CallCancellation* cancellation) {
  MasterStep::Params params;
  params.plan = std::move(plan);
  params.session_handle = handle_;
  params.request = &request;
  params.feed_values = feed_values;
  params.response = response;
  params.outputs = outputs;
  params.timeout_ms =
      request.options().timeout_in_ms() > 0 ? request.options().timeout_in_ms() : config_.operation_timeout_in_ms();
  params.client_cancellation = cancellation;
  MasterStep::Start(std::move(params), std::move(done));
}

Status MasterSession::Close(int64_t timeout_ms) {
  std::vector<std::shared_ptr<const StepPlan>> plans;
  std::set<std::string> tasks;
  {
    MutexLock lock(mu_);
    if (closed_) return OkStatus();
    closed_ = true;
    plans = plans_.TakeAll();
    tasks = tasks_;
  }
  const auto start = std::chrono::steady_clock::now();
  // Graphs first, then the sessions that hold them; an unreachable task costs at most the
  // timeout, since a closing client has nothing left to gain from it.
  auto deregister = DeregisterBatch::Create();
  for (const auto& plan : plans) {
    for (const StepPlan::Partition& partition : plan->partitions) {
      if (partition.graph_handle.empty()) continue;
      auto& call = deregister->Add(partition.task, partition.worker);
      call.request.set_session_handle(handle_);
      call.request.set_graph_handle(partition.graph_handle);
    }
  }
  deregister->IssueAll([](WorkerInterface* worker, const auto& request, auto* response, WorkerInterface::Done done) {
    worker->DeregisterGraphAsync(request, response, std::move(done));
  });
  deregister->Wait(std::max<int64_t>(0, timeout_ms - ElapsedMs(start)));

  auto remove = DeleteBatch::Create();
  for (const std::string& task : tasks) {
    auto worker = context_->workers->GetWorker(task);
    if (!worker.ok()) continue;
    remove->Add(task, *worker).request.set_session_handle(handle_);
  }
  remove->IssueAll([](WorkerInterface* worker, const auto& request, auto* response, WorkerInterface::Done done) {
    worker->DeleteWorkerSessionAsync(request, response, std::move(done));
  });
  remove->Wait(std::max<int64_t>(0, timeout_ms - ElapsedMs(start)));
  return OkStatus();
}

}  // namespace clab
