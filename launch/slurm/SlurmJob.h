// A SLURM job as the launcher follows it: its state while it is queued or running (squeue),
// and how it ended once it has left the queue (scontrol while the controller remembers it,
// else sacct where accounting is kept). SLURM's own words are kept: PENDING, RUNNING,
// COMPLETED, FAILED, CANCELLED, TIMEOUT...
#pragma once

#include "clab/core/Status.h"

#include <string>

namespace clab::launch {

struct SlurmJobStatus {
  std::string state;      // "RUNNING"
  std::string reason;     // "None", "Resources", "NonZeroExitCode"
  std::string exit_code;  // "0:0" once ended ("" before)
  bool ended = false;
};

class SlurmJob {
 public:
  // UNAVAILABLE naming the commands and what they said when none knows the job.
  static StatusOr<SlurmJobStatus> Query(const std::string& job_id);
  // scancel; UNAVAILABLE with scancel's words when it fails.
  static Status Cancel(const std::string& job_id);
  // sbatch --parsable SCRIPT -> the job id; errors carry sbatch's words.
  static StatusOr<std::string> Submit(const std::string& script_path);
};

}  // namespace clab::launch
