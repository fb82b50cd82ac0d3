#include "launch/slurm/SbatchScript.h"

#include "launch/ssh/ShellQuote.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

namespace clab::launch {

std::string SbatchScript::JobName(const ProjectFile& project) { return "clab-" + project.Stem(); }

std::vector<std::string> SbatchScript::StepCommand(const ProjectFile& project, const SbatchScriptInput& input) {
  std::vector<std::string> argv{"srun", "--label", "--kill-on-bad-exit=1",
                                // Ranks fill each node in turn, the order the addresses assume.
                                "--distribution=block", absl::StrCat("--ntasks=", input.num_tasks)};
  if (project.launch.slurm.overcommit) argv.push_back("--overcommit");
  argv.insert(argv.end(), {input.program, "slurm", "task", input.project_copy, "--port_base",
                           std::to_string(project.launch.slurm.port_base)});
  if (!input.tls_root.empty()) argv.insert(argv.end(), {"--tls_root", input.tls_root});
  return argv;
}

std::string SbatchScript::Text(const ProjectFile& project, const SbatchScriptInput& input) {
  const SlurmOptions& slurm = project.launch.slurm;
  std::vector<std::string> jobs;
  for (const std::string& job : project.cluster.jobs())
    jobs.push_back(absl::StrCat(job, " ", project.cluster.num_tasks(job)));
  std::string text =
      absl::StrCat("#!/bin/sh\n", "#SBATCH --job-name=", JobName(project), "\n", "#SBATCH --ntasks=", input.num_tasks,
                   "\n", "#SBATCH --output=", input.work_dir, "/slurm-%j.out\n");
  if (!slurm.partition.empty()) absl::StrAppend(&text, "#SBATCH --partition=", slurm.partition, "\n");
  if (!slurm.time_limit.empty()) absl::StrAppend(&text, "#SBATCH --time=", slurm.time_limit, "\n");
  if (slurm.overcommit) absl::StrAppend(&text, "#SBATCH --overcommit\n");
  for (const std::string& option : slurm.sbatch_options) absl::StrAppend(&text, "#SBATCH ", option, "\n");
  absl::StrAppend(&text,
                  "#\n"
                  "# ClusterLab project ",
                  project.name, " (", project.path, "): ", absl::StrJoin(jobs, ", "),
                  ".\n"
                  "# Each task finds the cluster and its own job and index in SLURM's environment\n"
                  "# (`clab slurm spec` prints what it finds), as TensorFlow's SlurmClusterResolver does;\n"
                  "# addresses are the nodes' names with ports from ",
                  slurm.port_base, ".\n", "exec ", ShellJoin(StepCommand(project, input)), "\n");
  return text;
}

}  // namespace clab::launch
