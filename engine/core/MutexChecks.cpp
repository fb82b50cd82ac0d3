// Abseil's mutexes (gRPC locks its calls, channels and completion queues with them) check
// lock order for deadlocks unless Abseil was built with NDEBUG, and Debian builds it without:
// every lock and unlock then goes through a process-wide graph of mutexes under one global
// lock. That is a debugging aid of Abseil's own development with a cost on every gRPC call
// (about 1% of a training step's CPU across the ps and worker, and contention between
// threads), so the engine turns it off when it is loaded, as a release build of Abseil has
// it. ClusterLab's own locks are std::mutex (clab/core/Mutex.h), checked by clang's
// thread-safety analysis at build time and by the sanitizer builds.
#include <absl/synchronization/mutex.h>

namespace clab {
namespace {

__attribute__((constructor(102))) void TurnOffAbslDeadlockDetection() {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
}

}  // namespace
}  // namespace clab
