// The ClusterSpec of a SLURM job step, worked out from SLURM's environment the way
// TensorFlow's SlurmClusterResolver does, so that a ClusterLab task and a TensorFlow task in
// the same step agree on every address:
//
// - the step's nodes (SLURM_STEP_NODELIST) and the tasks on each (SLURM_STEP_TASKS_PER_NODE);
//   outside a step, the job's (SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE);
// - the nodes sorted by name; on each node, ports port_base, port_base + 1, ... for its
//   tasks, in that order: the list of addresses;
// - the jobs sorted by name, each taking its number of addresses from the front of the list
//   ({"ps": 1, "worker": 2}: ps gets the first, worker the next two); without jobs, every
//   task is a worker (SLURM_STEP_NUM_TASKS of them);
// - this task is the one whose place in the list is its rank (SLURM_PROCID).
//
// With GPUs (gpus_per_node > 0) each task on a node gets its own gpus_per_task devices, in
// order (CUDA_VISIBLE_DEVICES), as TensorFlow sets them. Where TensorFlow would silently drop
// tasks (a node list and task counts of different lengths, too few GPUs) this says so.
#pragma once

#include "clab/core/Status.h"
#include "clab/distributed/ClusterSpec.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace clab::launch {

struct SlurmEnvironment {
  std::vector<std::string> nodes;  // expanded, in SLURM's order
  std::vector<int> tasks_per_node;
  std::optional<int> rank;  // SLURM_PROCID; absent outside a job step
  int num_tasks = 0;        // SLURM_STEP_NUM_TASKS (or SLURM_NTASKS)
  std::string node_name;    // SLURMD_NODENAME: where this task runs ("" : unknown)
  // Which variables the values came from, for messages.
  std::string nodelist_variable;
  std::string tasks_variable;

  using Getenv = std::function<const char*(const char*)>;
  // FAILED_PRECONDITION naming the variable that is missing ("not in a SLURM allocation?");
  // INVALID_ARGUMENT naming one that does not parse.
  static StatusOr<SlurmEnvironment> Read(const Getenv& getenv);
};

class SlurmClusterResolver {
 public:
  struct Options {
    std::map<std::string, int> jobs;  // empty: every task a worker
    int port_base = 8888;
    int gpus_per_node = 0;  // 0: no GPUs are given out
    int gpus_per_task = 0;  // 0: gpus_per_node over the most tasks on a node
  };
  struct Resolved {
    ClusterSpec cluster;
    std::string task_type;  // "" when the rank is unknown
    int task_index = 0;
    std::string address;               // this task's
    std::string cuda_visible_devices;  // "" without GPUs
  };

  // INVALID_ARGUMENT when the jobs want another number of tasks than the step has, or
  // when the GPUs do not go round.
  static StatusOr<Resolved> Resolve(const Options& options, const SlurmEnvironment& environment);
  // The jobs of a cluster as the resolver takes them ({"ps": 1, "worker": 2}).
  static std::map<std::string, int> JobSizes(const ClusterSpec& cluster);
  // "ps:1,worker:2" -> jobs; INVALID_ARGUMENT naming the part that is not NAME:COUNT.
  static StatusOr<std::map<std::string, int>> ParseJobs(const std::string& text);
};

}  // namespace clab::launch
