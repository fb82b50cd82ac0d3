// Runs a project's cluster through SLURM: `clab launch PROJECT --via slurm` and the
// studio's Run > On hosts with SLURM chosen. The launcher writes a work directory (the
// batch script, a copy of the project, its graph), submits the script with sbatch (or,
// inside an allocation, runs the step with srun itself), reports the job's state as it
// changes, streams the job's output with each line given to its task (srun --label gives
// the rank; ranks map to tasks as SlurmClusterResolver maps them), and ends with the job.
// Stop() cancels the job (scancel), and so does `clab launch --stop` through the record.
#pragma once

#include "clab/core/Status.h"
#include "launch/observe/LaunchObserver.h"
#include "launch/process/ChildProcess.h"
#include "launch/project/ProjectFile.h"
#include "launch/record/LaunchRecord.h"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace clab::launch {

struct SlurmLaunchOptions {
  std::string work_dir;  // "" : the project's launch.slurm.work_dir, else "<project>.slurm"
  std::string program;   // "" : the project's launch.slurm.binary, else this program
  // Run the step with srun in the current allocation (SLURM_JOB_ID is set) instead of
  // submitting a batch job.
  bool in_allocation = false;
  std::chrono::milliseconds poll{500};
};

class SlurmLauncher {
 public:
  SlurmLauncher(ProjectFile project, SlurmLaunchOptions options, LaunchObserver& observer);
  ~SlurmLauncher();

  Status Start();
  // Until the job has ended: OK when it COMPLETED; else its state, exit code and reason.
  Status Wait();
  // From any thread.
  void Stop();
  const std::string& job_id() const { return job_id_; }
  const std::string& work_dir() const { return work_dir_; }

  static Status StopRecorded(const LaunchRecord& record, LaunchObserver& observer);
  // Rank -> task name, in the order SlurmClusterResolver gives the ranks to the jobs.
  static std::vector<std::string> RankNames(const ProjectFile& project);

 private:
  void OnOutputLine(const std::string& line);
  void ReadNewOutput();
  Status WaitForStep();

  const ProjectFile project_;
  const SlurmLaunchOptions options_;
  LaunchObserver& observer_;
  const std::vector<std::string> rank_names_;
  std::string work_dir_;
  std::string job_id_;
  std::string output_path_;
  size_t output_offset_ = 0;
  std::string partial_line_;
  std::unique_ptr<ChildProcess> step_;  // srun, inside an allocation
  LaunchRecord record_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_requested_ = false;
};

}  // namespace clab::launch
