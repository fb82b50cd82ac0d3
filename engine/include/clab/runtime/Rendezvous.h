// Where a _Send leaves a tensor and the matching _Recv picks it up, within one step. Keys
// follow TensorFlow: "<send device>;<send incarnation hex>;<recv device>;<tensor name>;0:0".
// A local rendezvous serves devices of one process; the distributed runtime adds one that
// fetches from a remote task with RecvTensor.
#pragma once

#include "clab/core/Mutex.h"
#include "clab/core/Status.h"
#include "clab/core/Tensor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace clab {

struct RendezvousKey {
  std::string send_device;
  uint64_t send_incarnation = 0;
  std::string recv_device;
  std::string tensor_name;  // the edge's name, e.g. "MatMul:0" or a unique edge id

  std::string ToString() const;
  static StatusOr<RendezvousKey> Parse(std::string_view key);
};

class Rendezvous {
 public:
  using DoneCallback = std::function<void(const Status&, const Tensor&)>;
  virtual ~Rendezvous() = default;

  virtual Status Send(const std::string& key, const Tensor& value) = 0;
  // Calls `done` once the value for `key` is there (maybe at once, maybe on another thread),
  // or with the abort status.
  virtual void RecvAsync(const std::string& key, DoneCallback done) = 0;
  // Fails every pending and future Recv with `status` (e.g. another partition failed).
  virtual void StartAbort(const Status& status) = 0;
  // The first abort's status (OK while none); a while loop checks it before each iteration.
  virtual Status abort_status() const { return OkStatus(); }

  // Blocking Recv, for tests and simple callers.
  Status Recv(const std::string& key, Tensor* value);

  // Calls `listener` once with the abort status when the rendezvous is aborted (the step's
  // call was cancelled, another partition failed): a wait that does not go through Recv (a
  // queue's dequeue) ends with the step this way. Returns an id for RemoveAbortListener, or
  // -1 when the rendezvous was already aborted: `listener` is then not kept and never called,
  // and `*aborted` says why, so that a caller may add it while holding a lock its listener
  // takes.
  int AddAbortListener(std::function<void(const Status&)> listener, Status* aborted);
  void RemoveAbortListener(int id);

 protected:
  // Implementations call this from StartAbort, holding no lock of theirs.
  void NotifyAbortListeners(const Status& status);

 private:
  Mutex listeners_mu_;
  Status listeners_abort_ ABSL_GUARDED_BY(listeners_mu_);
  int next_listener_ ABSL_GUARDED_BY(listeners_mu_) = 0;
  std::map<int, std::function<void(const Status&)>> listeners_ ABSL_GUARDED_BY(listeners_mu_);
};

// Keeps values in memory; a Recv before its Send waits.
class LocalRendezvous : public Rendezvous {
 public:
  Status Send(const std::string& key, const Tensor& value) override;
  void RecvAsync(const std::string& key, DoneCallback done) override;
  void StartAbort(const Status& status) override;
  // No value waits to be received and no Recv waits for a value.
  bool Idle();
  // The first abort's status (OK while none): the step's root cause, where later failures
  // of other partitions are its echoes.
  Status abort_status() const override;

 private:
  mutable Mutex mu_;
  Status abort_status_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Tensor> ready_ ABSL_GUARDED_BY(mu_);
  std::multimap<std::string, DoneCallback> waiting_ ABSL_GUARDED_BY(mu_);
};

}  // namespace clab
