#include "distributed/GrpcWorkerCache.h"

#include "clab/core/DeviceName.h"
#include "distributed/GrpcRemoteWorker.h"
#include "distributed/LocalWorker.h"

#include <grpcpp/channel.h>

namespace clab {
namespace {

// "/job:J/replica:R/task:T" for any spelling of a task; the parts needed to find it.
struct TaskRef {
  std::string name;
  std::string job;
  int task = 0;
};

StatusOr<TaskRef> ParseTask(const std::string& task_name) {
  CLAB_ASSIGN_OR_RETURN(DeviceName parsed, DeviceName::Parse(task_name));
  if (!parsed.has_job || !parsed.has_task)
    return errors::InvalidArgument("'", task_name, "' does not name a task (expected /job:<name>/task:<index>)");
  return TaskRef{DeviceName::TaskPrefix(parsed.job, parsed.task, parsed.has_replica ? parsed.replica : 0), parsed.job,
                 parsed.task};
}

}  // namespace

GrpcWorkerCache::GrpcWorkerCache(ClusterSpec cluster, std::string local_task, Worker* local_worker,
                                 ChannelSettings settings)
    : cluster_(std::move(cluster)), local_task_(ParseTask(local_task).ok() ? ParseTask(local_task)->name : local_task),
      local_worker_(local_worker), settings_(settings) {}

GrpcWorkerCache::~GrpcWorkerCache() = default;

StatusOr<WorkerInterface*> GrpcWorkerCache::GetWorker(const std::string& task_name) {
  CLAB_ASSIGN_OR_RETURN(TaskRef task, ParseTask(task_name));
  std::lock_guard<std::mutex> lock(mu_);
  auto known = workers_.find(task.name);
  if (known != workers_.end()) return known->second.get();

  std::unique_ptr<WorkerInterface> worker;
  if (local_worker_ && task.name == local_task_) {
    worker = std::make_unique<LocalWorker>(local_worker_);
  } else {
    StatusOr<std::string> address = cluster_.TaskAddress(task.job, task.task);
    if (!address.ok())
      return errors::NotFound("The cluster has no task ", task.name, ": ", address.status().message(),
                              " (cluster: ", cluster_.ToInline(), ")");
    worker =
        std::make_unique<GrpcRemoteWorker>(task.name, *address, CreateChannel(*address, settings_), settings_.traffic);
  }
  WorkerInterface* result = worker.get();
  workers_.emplace(task.name, std::move(worker));
  return result;
}

std::string GrpcWorkerCache::AddressOf(const std::string& task_name) const {
  StatusOr<TaskRef> task = ParseTask(task_name);
  if (!task.ok()) return "";
  StatusOr<std::string> address = cluster_.TaskAddress(task->job, task->task);
  return address.ok() ? *address : "";
}

std::vector<std::string> GrpcWorkerCache::ListTasks() const {
  std::vector<std::string> tasks;
  for (const auto& [name, address] : cluster_.Tasks()) tasks.push_back(name);
  return tasks;
}

WorkerCacheFactory GrpcWorkerCacheFactory(ClusterSpec default_cluster, std::string local_task,
                                          std::function<Worker*()> local_worker, ChannelSettings settings) {
  return [default_cluster = std::move(default_cluster), local_task = std::move(local_task),
          local_worker = std::move(local_worker),
          settings](const tensorflow::ServerDef& server_def) -> StatusOr<std::unique_ptr<WorkerCache>> {
    ClusterSpec cluster = default_cluster;
    std::string task = local_task;
    if (server_def.cluster().job_size() > 0) {
      CLAB_ASSIGN_OR_RETURN(cluster, ClusterSpec::FromClusterDef(server_def.cluster()));
      if (!server_def.job_name().empty()) task = DeviceName::TaskPrefix(server_def.job_name(), server_def.task_index());
    }
    Worker* worker = local_worker ? local_worker() : nullptr;
    return std::unique_ptr<WorkerCache>(std::make_unique<GrpcWorkerCache>(std::move(cluster), task, worker, settings));
  };
}

}  // namespace clab
