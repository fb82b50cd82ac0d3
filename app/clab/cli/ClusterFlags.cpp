#include "cli/ClusterFlags.h"

#include "clab/core/MemoryBudget.h"
#include "clab/core/TensorSize.h"
#include "clab/distributed/ClusterAccess.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"

#include <absl/strings/str_cat.h>

#include <cstdlib>
#include <limits>

namespace clab::cli {

void ClusterFlags::Declare(FlagParser& flags) {
  flags.AddString("cluster", "SPEC",
                  "the cluster: 'ps=HOST:PORT;worker=HOST:PORT,...', JSON text or a JSON file "
                  "(default: TF_CONFIG's cluster)",
                  &cluster_);
  flags.AddString("job_name", "JOB", "this task's job, e.g. ps or worker (default: TF_CONFIG's task type)", &job_name_);
  flags.AddInt("task_index", "N", "this task's index in its job (default: TF_CONFIG's, else 0)", &task_index_, 0,
               std::numeric_limits<int>::max());
  flags.AddInt("max_tensor_bytes", "BYTES",
               absl::StrCat("the largest tensor this task allocates; a bigger feed, constant or op output fails "
                            "its step with RESOURCE_EXHAUSTED (default: half the physical memory, ",
                            TensorSize::DefaultMaxTensorBytes(), ")"),
               &max_tensor_bytes_, 1);
  flags.AddInt("max_memory_bytes", "BYTES",
               absl::StrCat("the most memory this task's tensors hold at once; a step that would need more fails "
                            "with RESOURCE_EXHAUSTED and the task goes on serving (default: three quarters of the "
                            "physical memory or of the cgroup's limit, ",
                            MemoryBudget::DefaultLimit(), ")"),
               &max_memory_bytes_, 1);
  access_.Declare(flags, /*task=*/true);
}

StatusOr<ClusterFlags::Task> ClusterFlags::Resolve(const std::string& default_cluster) const {
  CLAB_ASSIGN_OR_RETURN(Task task, ResolveTask(default_cluster));
  // The task's own certificate serves its server and its channels to the other tasks.
  // (A cluster of one job needs no job name, as for the server.)
  const std::string job =
      task.job_name.empty() && task.cluster.jobs().size() == 1 ? task.cluster.jobs().front() : task.job_name;
  CLAB_RETURN_IF_ERROR(access_.Apply(TaskCertificateName(job, task.task_index)));
  return task;
}

StatusOr<ClusterFlags::Task> ClusterFlags::ResolveTask(const std::string& default_cluster) const {
  // The limit holds for the whole process, which runs this one task.
  if (max_tensor_bytes_ > 0) TensorSize::SetMaxTensorBytes(static_cast<uint64_t>(max_tensor_bytes_));
  if (max_memory_bytes_ > 0) MemoryBudget::SetLimit(static_cast<uint64_t>(max_memory_bytes_));
  Task task;
  const char* tf_config = std::getenv("TF_CONFIG");
  const bool have_tf_config = tf_config != nullptr && *tf_config != '\0';
  const std::string& spec = cluster_.empty() && !have_tf_config ? default_cluster : cluster_;
  if (!spec.empty()) {
    auto cluster = ClusterSpec::Parse(spec);
    if (!cluster.ok()) return UsageError(absl::StrCat("--cluster: ", cluster.status().message()));
    task.cluster = *std::move(cluster);
    task.job_name = job_name_;
    task.task_index = task_index_ < 0 ? 0 : static_cast<int>(task_index_);
    return task;
  }
  if (!have_tf_config) return UsageError("no cluster given: pass --cluster SPEC or set TF_CONFIG");
  auto config = TfConfig::Parse(tf_config);
  if (!config.ok()) return UsageError(absl::StrCat("TF_CONFIG: ", config.status().message()));
  task.cluster = config->cluster;
  task.job_name = job_name_.empty() ? config->task_type : job_name_;
  task.task_index = task_index_ >= 0 ? static_cast<int>(task_index_) : config->task_index;
  return task;
}

}  // namespace clab::cli
