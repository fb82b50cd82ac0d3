// How a launch through SLURM behaves (the "slurm" member of a project's "launch" section):
//
//   "slurm": {"port_base": 8888, "partition": "gpu", "time_limit": "01:00:00",
//             "work_dir": "/shared/ana/jobs", "binary": "/shared/clusterlab/bin/clab",
//             "overcommit": false, "sbatch_options": ["--gres=gpu:1"]}
//
// Each task's address is its node's name and port_base plus its place among the tasks on
// that node, as TensorFlow's SlurmClusterResolver gives them. work_dir must be visible from
// the compute nodes (a shared file system): the batch script, a copy of the project and the
// job's output go there. binary is the clab program as the nodes see it (by default this
// program's own path, which a shared installation gives them). overcommit lets more tasks
// than CPUs share a node.
#pragma once

#include "clab/core/Status.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace clab::launch {

struct SlurmOptions {
  int port_base = 8888;
  std::string partition;   // "" : the cluster's default partition
  std::string time_limit;  // sbatch --time; "" : the partition's default
  std::string work_dir;    // "" : "<project>.slurm" beside the project file
  std::string binary;      // "" : this program's path
  bool overcommit = false;
  std::vector<std::string> sbatch_options;

  static StatusOr<SlurmOptions> FromJson(const nlohmann::json& json, const std::string& where);
  nlohmann::json ToJson() const;
  bool operator==(const SlurmOptions&) const = default;
};

}  // namespace clab::launch
