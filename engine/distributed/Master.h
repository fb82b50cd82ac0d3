// The master of one task: takes a client's graph, finds the cluster's devices, and runs
// steps by placing, pruning and partitioning the graph per task, registering the partitions
// with the workers (once per feeds/fetches/targets signature) and running them in parallel.
// Transport-free: GrpcMasterService adapts it to gRPC; a session in the same process calls
// it directly.
#pragma once

#include "clab/core/DeviceName.h"
#include "clab/core/Status.h"
#include "clab/distributed/ClusterSpec.h"
#include "clab/runtime/Device.h"
#include "distributed/WorkerInterface.h"
#include "tensorflow/master.pb.h"

#include <functional>
#include <memory>
#include <string>

namespace clab {

struct MasterOptions {
  std::string task_name;  // "/job:worker/replica:0/task:0"
  ClusterSpec cluster;
  WorkerCache* workers = nullptr;  // every task of the cluster, this one in process
  tensorflow::ConfigProto default_config;
  // Where progress and placement lines go (stdout when unset).
  std::function<void(const std::string&)> log;
  // This task's devices, whose resource containers Reset clears. Optional.
  DeviceMgr* local_devices = nullptr;
};

class Master {
 public:
  explicit Master(MasterOptions options);
  ~Master();

  // Every call on a session this master does not hold (never made, closed, or dropped by
  // Reset or a restart) is ABORTED "Session ... is not found", as in TensorFlow, so that a
  // monitored session recovers; ListDevices answers INVALID_ARGUMENT there, as TensorFlow's.
  //
  // Waits for the tasks the session needs (the ps jobs, this task, and any task the graph
  // names in a device), logging every few seconds which task it still waits for and at
  // which address, up to the configured deadline; then UNAVAILABLE naming them. A wait
  // ends with CANCELLED when `cancellation` (the caller's call, when it has one) is cancelled.
  Status CreateSession(const tensorflow::CreateSessionRequest& request, tensorflow::CreateSessionResponse* response,
                       CallCancellation* cancellation = nullptr);
  Status ExtendSession(const tensorflow::ExtendSessionRequest& request, tensorflow::ExtendSessionResponse* response,
                       CallCancellation* cancellation = nullptr);
  // The step ends with CANCELLED when `cancellation` (the client's call) is cancelled.
  void RunStepAsync(const tensorflow::RunStepRequest& request, tensorflow::RunStepResponse* response,
                    std::function<void(const Status&)> done, CallCancellation* cancellation = nullptr);
  Status RunStep(const tensorflow::RunStepRequest& request, tensorflow::RunStepResponse* response);
  // The in-process client's RunStep: `request.feed()` names the fed tensors and `feeds`
  // holds them (same order), handed to the workers of this process as they are; the
  // fetched tensors come back in `outputs` (fetch order) rather than TensorProtos in
  // `response`.
  Status RunStepWithTensors(const tensorflow::RunStepRequest& request, const std::vector<Tensor>& feeds,
                            tensorflow::RunStepResponse* response, std::vector<Tensor>* outputs);
  Status CloseSession(const tensorflow::CloseSessionRequest& request);
  Status ListDevices(const tensorflow::ListDevicesRequest& request, tensorflow::ListDevicesResponse* response);
  // Closes every session, then clears the resource containers on this task's devices and
  // on every other task the device filters select (CleanupAll), as TensorFlow's master does.
  Status Reset(const tensorflow::ResetRequest& request);

  // A partial run: checked and registered now, run by RunStep calls with its handle.
  Status PartialRunSetup(const tensorflow::PartialRunSetupRequest& request,
                         tensorflow::PartialRunSetupResponse* response);
  // Callables: a signature registered once and run by handle.
  Status MakeCallable(const tensorflow::MakeCallableRequest& request, tensorflow::MakeCallableResponse* response);
  void RunCallableAsync(const tensorflow::RunCallableRequest& request, tensorflow::RunCallableResponse* response,
                        std::function<void(const Status&)> done);
  Status ReleaseCallable(const tensorflow::ReleaseCallableRequest& request);

  // Closes every session (server shutdown).
  void CloseAll();

 private:
  void CleanupOtherTasks(const tensorflow::ResetRequest& request, const std::vector<DeviceName>& filters);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Masters of servers in this process, by target ("grpc://localhost:2222"), so a session
// created on such a target skips gRPC.
void RegisterLocalMaster(const std::string& target, Master* master);
void UnregisterLocalMaster(const std::string& target);
Master* FindLocalMaster(const std::string& target);

}  // namespace clab
