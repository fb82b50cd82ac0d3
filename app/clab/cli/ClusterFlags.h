// The --cluster / --job_name / --task_index flags shared by the commands that run a task of
// a cluster. The cluster comes from --cluster (inline "ps=h:p;worker=h:p", JSON text or a
// JSON file) or, when --cluster is absent, from the TF_CONFIG environment variable, which
// also supplies the task when --job_name is not given. The access flags (AccessFlags: TLS,
// token, listening, message limit) come with them and are applied by Resolve().
#pragma once

#include "clab/core/Status.h"
#include "clab/distributed/ClusterSpec.h"
#include "cli/AccessFlags.h"

#include <cstdint>
#include <string>

namespace clab::cli {

class FlagParser;

class ClusterFlags {
 public:
  void Declare(FlagParser& flags);

  struct Task {
    ClusterSpec cluster;
    std::string job_name;
    int task_index = 0;
  };
  // Usage errors name the flag (or TF_CONFIG) at fault. `default_cluster` (a spec) is used
  // when neither --cluster nor TF_CONFIG is given; empty, that is an error.
  StatusOr<Task> Resolve(const std::string& default_cluster = "") const;

 private:
  StatusOr<Task> ResolveTask(const std::string& default_cluster) const;

  std::string cluster_;
  std::string job_name_;
  int64_t task_index_ = -1;        // -1: not given
  int64_t max_tensor_bytes_ = -1;  // -1: not given (TensorSize's default)
  int64_t max_memory_bytes_ = -1;  // -1: not given (MemoryBudget's default)
  AccessFlags access_;
};

}  // namespace clab::cli
