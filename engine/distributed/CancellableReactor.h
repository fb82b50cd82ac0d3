// The reactor of a unary call whose reply comes later: a client that cancels (or whose link
// dies, or whose deadline passes) cancels what the call started, through cancellation().
// FinishOnce lets a handler that failed part-way and the work it started both try to finish
// the call without finishing it twice.
#pragma once

#include "clab/core/Status.h"
#include "distributed/WorkerInterface.h"

#include <grpcpp/grpcpp.h>

#include <atomic>

namespace clab {

class CancellableReactor final : public grpc::ServerUnaryReactor {
 public:
  CallCancellation* cancellation() { return &cancellation_; }
  // The first call finishes the reply; later ones do nothing.
  void FinishOnce(const Status& status);
  void OnCancel() override { cancellation_.Cancel(); }
  void OnDone() override { delete this; }
  // Both reactions are short (OnCancel only starts aborting what the call started; nothing
  // waits there), so gRPC may run them on the thread that sees the call end. Otherwise gRPC
  // hands every call's OnDone to its executor thread: a thread wake-up per call.
  bool InternalInlineable() override { return true; }

 private:
  CallCancellation cancellation_;
  std::atomic<bool> finished_{false};
};

}  // namespace clab
