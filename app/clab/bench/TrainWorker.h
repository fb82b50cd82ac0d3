// One worker of `clab bench train`'s ClusterLab runs, in a process of its own as on a user's
// cluster (`clab bench train-worker`, started by the benchmark): its own server, the digits
// MLP built under replica_device_setter (variables on the ps), a session on its server's
// master, minibatches of 32 fed from its shard of the training rows (row i goes to worker
// i % N), asynchronous plain gradient descent at 0.1.
//
// It prints "Worker K ready" once it can step (worker 0 after initialising the variables),
// waits until `go_file` exists (the benchmark creates it when every worker is ready, so that
// all start together), runs its share of the global steps and prints one line
//   RESULT-WORKER {"task": K, "steps": S, "start_ns": ..., "end_ns": ..., "cpu_us": ...,
//                  "context_switches": ..., "accuracy": ...}
// with steady-clock times (CLOCK_MONOTONIC, comparable between processes), the process's CPU
// time and context switches over its steps, and (worker 0) the held-out accuracy afterwards.
#pragma once

#include "clab/core/Status.h"
#include "clab/distributed/ClusterSpec.h"

#include <cstdint>
#include <iosfwd>
#include <string>

namespace clab::cli {

struct TrainWorkerOptions {
  ClusterSpec cluster;  // "ps" (one task) and "worker" jobs
  int task_index = 0;
  int64_t total_steps = 3000;  // global steps, shared between the workers
  int hidden = 128;
  std::string go_file;
};

inline constexpr char kTrainWorkerResult[] = "RESULT-WORKER ";

Status RunTrainWorker(const TrainWorkerOptions& options, std::ostream& out);

}  // namespace clab::cli
