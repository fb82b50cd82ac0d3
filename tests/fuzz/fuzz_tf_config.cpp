// TF_CONFIG, the environment variable a launcher (Kubernetes' TFJob, SLURM scripts) sets
// for every task: the cluster and which task this one is.
#include "clab/distributed/ClusterSpec.h"

#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = clab::TfConfig::Parse(text);
  if (!config.ok()) return 0;
  // A task that parsed is one of the cluster's, unless the cluster is left to the caller.
  if (!config->cluster.empty() && config->cluster.HasJob(config->task_type) &&
      !config->cluster.TaskAddress(config->task_type, config->task_index).ok())
    std::abort();
  return 0;
}
