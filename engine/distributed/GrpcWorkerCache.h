// The workers of a cluster as one task sees them: its own worker called in process, every
// other task through a gRPC channel made on first use and kept for the cache's lifetime.
#pragma once

#include "clab/distributed/ClusterSpec.h"
#include "distributed/GrpcChannels.h"
#include "distributed/Worker.h"
#include "distributed/WorkerInterface.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace clab {

class GrpcWorkerCache final : public WorkerCache {
 public:
  // `local_task` ("/job:worker/replica:0/task:0") is served by `local_worker` directly; with
  // no local worker every task, this one included, is reached over gRPC.
  GrpcWorkerCache(ClusterSpec cluster, std::string local_task, Worker* local_worker, ChannelSettings settings = {});
  ~GrpcWorkerCache() override;

  // Accepts "/job:ps/task:0" as well as "/job:ps/replica:0/task:0".
  StatusOr<WorkerInterface*> GetWorker(const std::string& task_name) override;
  std::string AddressOf(const std::string& task_name) const override;
  std::vector<std::string> ListTasks() const override;

  const ClusterSpec& cluster() const { return cluster_; }

 private:
  const ClusterSpec cluster_;
  const std::string local_task_;
  Worker* const local_worker_;
  const ChannelSettings settings_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<WorkerInterface>> workers_;
};

// The WorkerCacheFactory a server gives its Worker: a session's cache spans the cluster the
// master sent in its ServerDef (and names the task by its job_name and task_index), or,
// when the ServerDef has no cluster, `default_cluster` with `local_task`. `local_worker`
// is asked for the in-process worker when a cache is made (the Worker does not exist yet
// when the factory is).
WorkerCacheFactory GrpcWorkerCacheFactory(ClusterSpec default_cluster, std::string local_task,
                                          std::function<Worker*()> local_worker, ChannelSettings settings = {});

}  // namespace clab
