// A partition a master registered with this worker: the task's share of a client graph for
// one (feeds, fetches, targets) signature, split once more per local device, with one
// executor per device built at registration. Running a step only moves tensors: no graph
// work happens per step.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/runtime/Device.h"
#include "clab/runtime/Executor.h"
#include "distributed/StepRendezvous.h"
#include "distributed/WorkerInterface.h"
#include "tensorflow/step_stats.pb.h"
#include "tensorflow/worker.pb.h"

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace clab {

class RegisteredGraph {
 public:
  struct RunResult {
    Status status;
    std::vector<Tensor> fetches;  // in registered fetch order
    tensorflow::StepStats stats;  // one entry per device when stats were asked for
  };
  using RunDone = std::function<void(RunResult)>;

  // `peers` resolves the tasks this partition's _Recv nodes pull from; `task_name` is this
  // worker's task ("/job:ps/replica:0/task:0"). Errors name the node or tensor at fault.
  static StatusOr<std::unique_ptr<RegisteredGraph>> Create(const tensorflow::RegisterGraphRequest& request,
                                                           const DeviceMgr& devices, const std::string& task_name,
                                                           WorkerCache* peers);

  const std::vector<std::string>& feeds() const { return feeds_; }
  const std::vector<std::string>& fetches() const { return fetches_; }
  const RemoteTensorSources& remote_sources() const { return remote_sources_; }
  // Index of a fed tensor name in feeds(), or -1.
  int FeedIndex(const std::string& name) const;

  // Runs every device's executor concurrently; `feeds` in feeds() order. On the first
  // failure the step's rendezvous is aborted so the other devices and tasks stop too.
  void RunAsync(int64_t step_id, StepRendezvous* rendezvous, std::vector<Tensor> feeds, bool collect_stats,
                RunDone done) const;

 private:
  struct DevicePart {
    std::unique_ptr<Executor> executor;
    std::vector<int> feed_indices;  // executor feed i is graph feed feed_indices[i]
  };
  struct FetchRoute {
    int part = 0;
    int index = 0;
  };
  class Run;

  RegisteredGraph() = default;
  Status Build(const tensorflow::RegisterGraphRequest& request, const DeviceMgr& devices, const std::string& task_name,
               WorkerCache* peers);
  Status FindRemoteSources(const tensorflow::GraphDef& graph, const std::string& task_name, WorkerCache* peers);

  std::vector<std::string> feeds_;
  std::vector<std::string> fetches_;
  std::unordered_map<std::string, int> feed_index_;
  std::vector<DevicePart> parts_;
  std::vector<FetchRoute> fetch_routes_;
  RemoteTensorSources remote_sources_;
};

}  // namespace clab
