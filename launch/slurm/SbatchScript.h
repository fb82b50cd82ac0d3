// The batch script `clab launch --via slurm` submits with sbatch: one job of as many tasks as
// the project's cluster has, and one job step (srun) that runs `clab slurm task` in each;
// every task works out the ClusterSpec and its own job and index from SLURM's environment
// (SlurmClusterResolver) and becomes that task of the project. The ps ends by itself once
// the workers have finished, so the job ends when training does. A protected cluster's
// tasks find their credentials in the work directory (`--tls_root`, see TaskCredentials).
#pragma once

#include "launch/project/ProjectFile.h"

#include <string>
#include <vector>

namespace clab::launch {

struct SbatchScriptInput {
  std::string program;       // clab, as the compute nodes see it
  std::string project_copy;  // the project's copy in the work directory
  std::string work_dir;
  int num_tasks = 0;
  // A protected cluster: the directory of the tasks' credential directories (one per task,
  // JOB-INDEX/, see TaskCredentials), which `clab slurm task --tls_root` points each task at.
  std::string tls_root;
};

class SbatchScript {
 public:
  // The script's text: #SBATCH lines from the project's SLURM options, then the step.
  static std::string Text(const ProjectFile& project, const SbatchScriptInput& input);
  // The step alone (srun's argv), as `clab launch --via slurm` runs it inside an allocation.
  static std::vector<std::string> StepCommand(const ProjectFile& project, const SbatchScriptInput& input);
  // "clab-seed": the job's name.
  static std::string JobName(const ProjectFile& project);
};

}  // namespace clab::launch
