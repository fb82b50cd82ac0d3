// How a ps learns that training is over. TensorFlow's ps joins its server forever, and a
// batch job or a pod with a ps in it never ends by itself; `clab server --until_workers_done`
// asks every worker of its cluster, through the worker's monitor service (GetTaskInfo),
// how it is doing, and stops once each one has been seen and has then finished: its
// monitored session closed (STOPPED), or its process ended (it no longer answers).
#pragma once

#include "clab/distributed/ClusterSpec.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

namespace clab::launch {

class WorkerWatch {
 public:
  explicit WorkerWatch(const ClusterSpec& cluster, std::string job = "worker",
                       std::chrono::milliseconds poll_interval = std::chrono::milliseconds(200));

  // Blocks until every worker has finished (true) or Cancel() was called (false).
  bool WaitUntilDone();
  void Cancel();

 private:
  // One round of questions; true when every worker is done.
  bool PollOnce();

  struct Worker {
    std::string address;
    bool seen = false;
    bool done = false;
  };
  std::map<std::string, Worker> workers_;  // task name -> state
  const std::chrono::milliseconds poll_interval_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool cancelled_ = false;
};

}  // namespace clab::launch
