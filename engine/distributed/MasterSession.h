// One client session on a master: the client's graph, the devices of the tasks it needs,
// a worker session on each of those tasks, and one registered plan per (feeds, fetches,
// targets) signature. The first run of a signature prunes, places, partitions and
// registers; every later run of it only sends RunGraph calls.
#pragma once

#include "clab/compile/Placer.h"
#include "clab/compile/PlanCache.h"
#include "clab/core/Mutex.h"
#include "clab/core/Status.h"
#include "clab/distributed/ClusterSpec.h"
#include "clab/graph/Graph.h"
#include "distributed/CallableTable.h"
#include "distributed/MasterStep.h"
#include "distributed/PartialRuns.h"
#include "distributed/StepPlan.h"
#include "distributed/WorkerInterface.h"
#include "tensorflow/config.pb.h"
#include "tensorflow/master.pb.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace clab {

// What every session of one master shares.
struct MasterContext {
  std::string task_name;  // the master's own task
  ClusterSpec cluster;
  WorkerCache* workers = nullptr;
  std::function<void(const std::string&)> log;
  // Set when the server stops: waits end early.
  const std::atomic<bool>* stopping = nullptr;
};

class MasterSession {
 public:
  // Finds the tasks the session needs (see TasksToContact), waits for them to answer,
  // and creates a worker session on each. The wait ends when `cancellation` is cancelled.
  static StatusOr<std::shared_ptr<MasterSession>> Create(std::string handle, tensorflow::ConfigProto config,
                                                         const MasterContext* context,
                                                         const tensorflow::GraphDef& graph,
                                                         CallCancellation* cancellation = nullptr);
  ~MasterSession();

  const std::string& handle() const { return handle_; }
  const tensorflow::ConfigProto& config() const { return config_; }
  int64_t graph_version() const;

  // Adds nodes; tasks that new nodes name are contacted first.
  Status Extend(const tensorflow::ExtendSessionRequest& request, tensorflow::ExtendSessionResponse* response,
                CallCancellation* cancellation = nullptr);

  // The plan of the request's signature if it is already built: the cheap steady state.
  std::shared_ptr<const StepPlan> FindPlan(const tensorflow::RunStepRequest& request) const;
  // Builds and registers the plan (blocking on the workers) unless another call already did.
  StatusOr<std::shared_ptr<const StepPlan>> GetOrBuildPlan(const tensorflow::RunStepRequest& request);
  // Runs one step of `plan`; see MasterStep::Params for the lifetime of the messages.
  void RunStep(std::shared_ptr<const StepPlan> plan, const tensorflow::RunStepRequest& request,
               const std::vector<Tensor>* feed_values, tensorflow::RunStepResponse* response,
               std::vector<Tensor>* outputs, MasterStep::Done done, CallCancellation* cancellation = nullptr);

  // Deregisters every graph and deletes every worker session; waits at most `timeout_ms`.
  Status Close(int64_t timeout_ms);
  bool closed() const;

  std::vector<tensorflow::DeviceAttributes> devices() const;
  // The session's graph as it stands (the client's nodes, unplaced).
  std::shared_ptr<const tensorflow::GraphDef> graph_def() const;

  PartialRuns& partial_runs() { return partial_runs_; }
  CallableTable& callables() { return callables_; }

  // The tasks a session contacts: with device_filters, the tasks they match; with
  // contact_all_tasks, all; else the ps jobs, the master's task and the tasks named by a
  // node's device. Sorted; the master's own task always included.
  // INVALID_ARGUMENT for a device filter that does not parse.
  static StatusOr<std::vector<std::string>> TasksToContact(const MasterContext& context,
                                                           const tensorflow::ConfigProto& config,
                                                           const tensorflow::GraphDef& graph);

 private:
  // The devices known to the session; replaced as a whole when tasks are added.
  struct DeviceSet {
    std::vector<tensorflow::DeviceAttributes> attributes;
    std::vector<AvailableDevice> available;  // the master's task first
    std::unordered_map<std::string, uint64_t> incarnations;
  };

  // The session's graph as the client sent it, and built (checked) once per version.
  struct SessionGraph {
    tensorflow::GraphDef def;
    std::unique_ptr<Graph> graph;
  };

  MasterSession(std::string handle, tensorflow::ConfigProto config, const MasterContext* context);
  Status AddTasks(const std::vector<std::string>& tasks, CallCancellation* cancellation) ABSL_LOCKS_EXCLUDED(mu_);
  static std::string SignatureKey(const tensorflow::RunStepRequest& request);
  Status RegisterPlan(StepPlan* plan);
  void DeregisterPlan(const StepPlan& plan);
  PlacerOptions PlacerOptionsForSession() ABSL_EXCLUSIVE_LOCKS_REQUIRED(build_mu_);

  const std::string handle_;
  const tensorflow::ConfigProto config_;
  const MasterContext* const context_;

  mutable Mutex mu_;
  std::shared_ptr<const SessionGraph> graph_ ABSL_GUARDED_BY(mu_);
  int64_t graph_version_ ABSL_GUARDED_BY(mu_) = 0;
  std::shared_ptr<const DeviceSet> devices_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> tasks_ ABSL_GUARDED_BY(mu_);  // tasks with a worker session
  bool closed_ ABSL_GUARDED_BY(mu_) = false;

  // Registered plans by StepSignature key; looked up without mu_.
  PlanCache<StepPlan> plans_;
  PartialRuns partial_runs_;
  CallableTable callables_;

  // Serialises plan building; guards what placement remembers across plans. Taken before
  // mu_ when both are held.
  Mutex build_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  std::map<std::string, std::string> stateful_placement_ ABSL_GUARDED_BY(build_mu_);
  std::set<std::string> logged_placements_ ABSL_GUARDED_BY(build_mu_);
};

}  // namespace clab
