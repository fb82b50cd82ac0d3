#include "commands/SlurmSpecCommand.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "launch/project/ProjectFile.h"
#include "launch/slurm/SlurmClusterResolver.h"

#include <absl/strings/str_join.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <ostream>

namespace clab::cli {

std::string SlurmSpecCommand::description() const {
  return "Reads SLURM's environment (SLURM_STEP_NODELIST, SLURM_STEP_TASKS_PER_NODE and\n"
         "SLURM_PROCID in a job step; SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE in an\n"
         "allocation) and prints the cluster its tasks get: the nodes sorted by name, on each\n"
         "consecutive ports from --port_base, the jobs sorted by name taking their tasks in\n"
         "that order; rank r is the r-th address. This is what TensorFlow's\n"
         "SlurmClusterResolver(jobs, port_base) gives, and what 'clab launch --via slurm'\n"
         "uses. With SLURM_PROCID set it also prints this task's TF_CONFIG.\n\n"
         "Examples:\n"
         "  srun -n3 clab slurm spec --jobs ps:1,worker:2\n"
         "  SLURM_JOB_NODELIST='n[1-3,5]' SLURM_TASKS_PER_NODE='2(x3),1' clab slurm spec --jobs ps:2,worker:5";
}

void SlurmSpecCommand::DeclareFlags(FlagParser& flags) {
  flags.AddString("jobs", "JOB:N,...", "the jobs and their sizes (default: every task a worker)", &jobs_);
  flags.AddString("project", "FILE", "take the jobs and the port base from this project", &project_);
  flags.AddInt("port_base", "PORT", "the first port on each node", &port_base_, 1, 65535);
  flags.AddInt("gpus_per_node", "N", "give each task its own GPUs from N per node (CUDA_VISIBLE_DEVICES)",
               &gpus_per_node_, 0);
  flags.AddInt("gpus_per_task", "N", "GPUs per task (default: the node's GPUs over its tasks)", &gpus_per_task_, 0);
}

Status SlurmSpecCommand::Run(std::ostream& out) {
  launch::SlurmClusterResolver::Options options;
  options.port_base = static_cast<int>(port_base_);
  options.gpus_per_node = static_cast<int>(gpus_per_node_);
  options.gpus_per_task = static_cast<int>(gpus_per_task_);
  if (!project_.empty() && !jobs_.empty()) return UsageError("give --jobs or --project, not both");
  if (!project_.empty()) {
    CLAB_ASSIGN_OR_RETURN(const launch::ProjectFile project, launch::ProjectFile::Read(project_));
    options.jobs = launch::SlurmClusterResolver::JobSizes(project.cluster);
    options.port_base = project.launch.slurm.port_base;
  } else if (!jobs_.empty()) {
    auto jobs = launch::SlurmClusterResolver::ParseJobs(jobs_);
    if (!jobs.ok()) return UsageError("--jobs: " + std::string(jobs.status().message()));
    options.jobs = *jobs;
  }
  CLAB_ASSIGN_OR_RETURN(const launch::SlurmEnvironment environment,
                        launch::SlurmEnvironment::Read([](const char* name) { return std::getenv(name); }));
  CLAB_ASSIGN_OR_RETURN(const launch::SlurmClusterResolver::Resolved resolved,
                        launch::SlurmClusterResolver::Resolve(options, environment));
  out << "nodes (" << environment.nodelist_variable << "): " << absl::StrJoin(environment.nodes, " ") << "\n";
  out << "tasks per node (" << environment.tasks_variable << "): " << absl::StrJoin(environment.tasks_per_node, " ")
      << "\n";
  out << "cluster: " << resolved.cluster.ToJson() << "\n";
  if (resolved.task_type.empty()) {
    out << "(SLURM_PROCID is not set: outside a job step no task is this one)" << std::endl;
    return OkStatus();
  }
  out << "this task (rank " << *environment.rank << "): /job:" << resolved.task_type
      << "/replica:0/task:" << resolved.task_index << " at " << resolved.address << "\n";
  if (!resolved.cuda_visible_devices.empty()) out << "CUDA_VISIBLE_DEVICES=" << resolved.cuda_visible_devices << "\n";
  const nlohmann::json tf_config = {{"cluster", nlohmann::json::parse(resolved.cluster.ToJson())},
                                    {"task", {{"type", resolved.task_type}, {"index", resolved.task_index}}}};
  out << "TF_CONFIG=" << tf_config.dump() << std::endl;
  return OkStatus();
}

}  // namespace clab::cli
