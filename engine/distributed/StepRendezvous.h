// The rendezvous of one step on one worker. Tensors sent here stay in memory until a local
// _Recv or a peer's RecvTensor takes them; a local _Recv whose tensor comes from another
// task pulls it with RecvTensor from that task's worker. Aborting the step fails every
// local waiter at once and cancels the pulls in flight, so a failure anywhere in the step
// stops the whole step quickly.
#pragma once

#include "clab/core/Mutex.h"
#include "clab/runtime/Rendezvous.h"
#include "distributed/WorkerInterface.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace clab {

// Where the tensor of a rendezvous key that another task sends comes from.
struct RemoteTensorSource {
  std::string task;                   // "/job:ps/replica:0/task:0", for messages
  WorkerInterface* worker = nullptr;  // that task's worker
};
using RemoteTensorSources = std::unordered_map<std::string, RemoteTensorSource>;

class StepRendezvous final : public Rendezvous, public std::enable_shared_from_this<StepRendezvous> {
 public:
  explicit StepRendezvous(int64_t step_id) : step_id_(step_id) {}
  ~StepRendezvous() override;

  int64_t step_id() const { return step_id_; }

  // Keys this step's _Recv nodes pull from other tasks. Set by RunGraph before its executors
  // start; `sources` must outlive the run (the registered graph owns it).
  void SetRemoteSources(const RemoteTensorSources* sources);
  // Forgets `sources` when they are the ones set (another run of the step may have set its own).
  void ClearRemoteSources(const RemoteTensorSources* sources);
  // Keys the master delivers into this rendezvous itself (Worker::DeliverTensor, or
  // RunGraphRequest.delivered): a _Recv for one of them waits here even though its sender
  // is another task. Each run of the step adds its own.
  void AddDeliveredKeys(const std::vector<std::string>& keys);

  Status Send(const std::string& key, const Tensor& value) override;
  // A local _Recv: from memory, or pulled from the sending task.
  void RecvAsync(const std::string& key, DoneCallback done) override;
  // A peer's RecvTensor: always from memory.
  void RecvLocalAsync(const std::string& key, DoneCallback done);
  void StartAbort(const Status& status) override;

  // The first abort's status (OK while none): the step's root cause, where later failures
  // of other partitions are its echoes.
  Status abort_cause() const;
  Status abort_status() const override { return abort_cause(); }
  // Nothing is left in it: no tensor waits for its receiver, nobody waits for a tensor, no
  // pull from a peer is in flight, and it was not aborted.
  bool Idle();

 private:
  struct PendingPull;
  void PullFromPeer(const std::string& key, const RemoteTensorSource& source, DoneCallback done);
  void FinishPull(uint64_t id, const Status& status);

  const int64_t step_id_;
  LocalRendezvous local_;
  // Cancels the RecvTensor calls in flight when the step aborts.
  CallCancellation pulls_cancellation_;

  mutable Mutex mu_;
  Status abort_cause_ ABSL_GUARDED_BY(mu_);
  const RemoteTensorSources* remote_sources_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::vector<std::string> delivered_keys_ ABSL_GUARDED_BY(mu_);
  uint64_t next_pull_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::unordered_map<uint64_t, std::shared_ptr<PendingPull>> pending_pulls_ ABSL_GUARDED_BY(mu_);
};

}  // namespace clab
