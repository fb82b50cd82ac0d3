// How a ps learns that training is over. TensorFlow's ps joins its server forever, and a
// batch job or a pod with a ps in it never ends by itself; `clab server --until_workers_done`
// follows the event stream of every worker of its cluster (its monitor service's Watch, as
// the studio follows it) and stops once each one has been seen and has then finished: its
// monitored session closed (STOPPED) and its stream ended, or its process ended (it no
// longer answers). Workers started by a launch wait for such a watcher before they begin
// (--wait_for_watcher_ms), so that even a worker done in a blink is seen.
#pragma once

#include "clab/distributed/ClusterSpec.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace grpc {
class ClientContext;
}

namespace clab::launch {

class WorkerWatch {
 public:
  explicit WorkerWatch(const ClusterSpec& cluster, std::string job = "worker");
  ~WorkerWatch();

  // Blocks until every worker has finished (true) or Cancel() was called (false).
  bool WaitUntilDone();
  // From any thread.
  void Cancel();

 private:
  struct Worker {
    std::string address;
    bool done = false;
    grpc::ClientContext* call = nullptr;  // the watch in progress, for Cancel()
  };
  // Follows one worker until it is done or the watch is cancelled.
  void Follow(Worker& worker);
  // Whether the worker still answers and has not stopped.
  bool StillRunning(const Worker& worker) const;
  bool Sleep();  // a short pause before trying again; false when cancelled

  std::vector<std::unique_ptr<Worker>> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool cancelled_ = false;
};

}  // namespace clab::launch
