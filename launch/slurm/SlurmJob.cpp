#include "launch/slurm/SlurmJob.h"

#include "launch/process/CommandRun.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>
#include <absl/strings/strip.h>

#include <map>

namespace clab::launch {
namespace {

constexpr std::chrono::seconds kCommandTimeout(30);

// "JobId=12 JobName=x JobState=COMPLETED Reason=None ... ExitCode=0:0" -> fields.
std::map<std::string, std::string> ParseFields(const std::string& line) {
  std::map<std::string, std::string> fields;
  for (const absl::string_view word : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
    const size_t equals = word.find('=');
    if (equals != absl::string_view::npos)
      fields.emplace(std::string(word.substr(0, equals)), std::string(word.substr(equals + 1)));
  }
  return fields;
}

bool IsEnded(const std::string& state) {
  return state != "PENDING" && state != "RUNNING" && state != "CONFIGURING" && state != "COMPLETING" &&
         state != "SUSPENDED" && state != "REQUEUED" && state != "RESIZING" && state != "STAGE_OUT" &&
         state != "SIGNALING";
}

}  // namespace

StatusOr<std::string> SlurmJob::Submit(const std::string& script_path) {
  CLAB_ASSIGN_OR_RETURN(const CommandResult result, RunCommand({"sbatch", "--parsable", script_path}, kCommandTimeout));
  const std::string first = result.lines.empty() ? "" : result.lines.back();
  const std::string id = first.substr(0, first.find(';'));
  if (result.exit_status != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    return errors::Unavailable("sbatch did not take ", script_path, ": ", result.Output());
  return id;
}

StatusOr<SlurmJobStatus> SlurmJob::Query(const std::string& job_id) {
  SlurmJobStatus status;
  std::vector<std::string> said;
  // Queued or running: squeue knows it.
  auto queue = RunCommand({"squeue", "-h", "-j", job_id, "-o", "%T|%r"}, kCommandTimeout);
  if (queue.ok() && queue->exit_status == 0 && !queue->lines.empty() && !queue->lines.front().empty()) {
    const std::vector<std::string> parts = absl::StrSplit(queue->lines.front(), '|');
    status.state = parts[0];
    status.reason = parts.size() > 1 ? parts[1] : "";
    status.ended = IsEnded(status.state);
    if (!status.ended) return status;
  }
  if (queue.ok()) said.push_back(absl::StrCat("squeue: ", queue->Output()));
  // Left the queue: the controller remembers it for a while (MinJobAge).
  auto job = RunCommand({"scontrol", "-o", "show", "job", job_id}, kCommandTimeout);
  if (job.ok() && job->exit_status == 0 && !job->lines.empty()) {
    const auto fields = ParseFields(job->lines.front());
    if (auto state = fields.find("JobState"); state != fields.end()) {
      status.state = state->second;
      status.reason = fields.count("Reason") ? fields.at("Reason") : "";
      status.exit_code = fields.count("ExitCode") ? fields.at("ExitCode") : "";
      status.ended = IsEnded(status.state);
      return status;
    }
  }
  if (job.ok()) said.push_back(absl::StrCat("scontrol: ", job->Output()));
  // Long gone: the accounting database, where there is one.
  auto accounting =
      RunCommand({"sacct", "-n", "-X", "-P", "-j", job_id, "-o", "State,ExitCode,Reason"}, kCommandTimeout);
  if (accounting.ok() && accounting->exit_status == 0 && !accounting->lines.empty() &&
      !accounting->lines.front().empty()) {
    const std::vector<std::string> parts = absl::StrSplit(accounting->lines.front(), '|');
    // "CANCELLED by 0" -> CANCELLED
    status.state = std::string(absl::StripAsciiWhitespace(parts[0].substr(0, parts[0].find(' '))));
    status.exit_code = parts.size() > 1 ? parts[1] : "";
    status.reason = parts.size() > 2 ? parts[2] : "";
    status.ended = IsEnded(status.state);
    return status;
  }
  if (accounting.ok()) said.push_back(absl::StrCat("sacct: ", accounting->Output()));
  return errors::Unavailable("SLURM does not know job ", job_id, " (", absl::StrJoin(said, "; "), ")");
}

Status SlurmJob::Cancel(const std::string& job_id) {
  CLAB_ASSIGN_OR_RETURN(const CommandResult result, RunCommand({"scancel", job_id}, kCommandTimeout));
  if (result.exit_status != 0) return errors::Unavailable("scancel ", job_id, " failed: ", result.Output());
  return OkStatus();
}

}  // namespace clab::launch
