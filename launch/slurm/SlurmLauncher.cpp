#include "launch/slurm/SlurmLauncher.h"

#include "launch/project/TextFile.h"
#include "launch/security/TaskCredentials.h"
#include "launch/slurm/SbatchScript.h"
#include "launch/slurm/SlurmJob.h"

#include <absl/strings/ascii.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace clab::launch {

SlurmLauncher::SlurmLauncher(ProjectFile project, SlurmLaunchOptions options, LaunchObserver& observer)
    : project_(std::move(project)), options_(std::move(options)), observer_(observer),
      rank_names_(RankNames(project_)) {}

SlurmLauncher::~SlurmLauncher() = default;

std::vector<std::string> SlurmLauncher::RankNames(const ProjectFile& project) {
  std::vector<std::string> names;
  // Jobs sorted by name, each task in index order: the resolver's order of ranks.
  for (const ProjectFile::Task& task : project.Tasks()) names.push_back(task.name());
  return names;
}

Status SlurmLauncher::Start() {
  const SlurmOptions& slurm = project_.launch.slurm;
  std::error_code error;
  std::string dir = options_.work_dir.empty() ? slurm.work_dir : options_.work_dir;
  if (dir.empty()) dir = project_.path + ".slurm";
  work_dir_ = std::filesystem::absolute(dir, error).lexically_normal().string();
  std::filesystem::create_directories(work_dir_, error);
  if (error) return errors::Unavailable("cannot make the work directory ", work_dir_, ": ", error.message());

  // What the nodes read: a copy of the project as it is now, and its graph.
  CLAB_ASSIGN_OR_RETURN(const std::string project_text, ReadTextFile(project_.path));
  SbatchScriptInput input;
  input.project_copy = absl::StrCat(work_dir_, "/", project_.Stem(), ".clab");
  input.work_dir = work_dir_;
  input.num_tasks = static_cast<int>(rank_names_.size());
  input.program = !options_.program.empty() ? options_.program
                  : !slurm.binary.empty()   ? slurm.binary
                                            : ChildProcess::SelfPath();
  CLAB_RETURN_IF_ERROR(WriteTextFile(input.project_copy, project_text));
  // A protected cluster: each task's own credentials in a private directory of the work
  // directory (which the nodes share), found by the task from its job and index.
  if (!project_.security.tls_dir.empty()) {
    input.tls_root = absl::StrCat(work_dir_, "/tls");
    for (const ProjectFile::Task& task : project_.Tasks()) {
      CLAB_ASSIGN_OR_RETURN(const TaskCredentials credentials,
                            TaskCredentials::Find(project_.security, task.job, task.index));
      CLAB_RETURN_IF_ERROR(credentials.StageLocally(absl::StrCat(input.tls_root, "/", credentials.cert_name)));
    }
  }
  if (!project_.graph.empty())
    CLAB_RETURN_IF_ERROR(WriteTextFile(absl::StrCat(work_dir_, "/", project_.Stem(), ".graph.pbtxt"), project_.graph));

  record_.method = "slurm";
  record_.project = project_.path;
  record_.launcher_pid = ::getpid();
  record_.work_dir = work_dir_;
  if (options_.in_allocation) {
    const std::vector<std::string> argv = SbatchScript::StepCommand(project_, input);
    observer_.Note(absl::StrCat("running the step in allocation ",
                                std::getenv("SLURM_JOB_ID") ? std::getenv("SLURM_JOB_ID") : "?"));
    CLAB_ASSIGN_OR_RETURN(step_, ChildProcess::Start(
                                     argv[0], std::vector<std::string>(argv.begin() + 1, argv.end()),
                                     [this](const std::string& line) { OnOutputLine(line); },
                                     ChildProcess::Options{.own_process_group = true}));
    if (const char* job = std::getenv("SLURM_JOB_ID")) record_.job_id = job;
    return record_.Write();
  }
  const std::string script = absl::StrCat(work_dir_, "/", project_.Stem(), ".sbatch");
  CLAB_RETURN_IF_ERROR(WriteTextFile(script, SbatchScript::Text(project_, input), 0755));
  CLAB_ASSIGN_OR_RETURN(job_id_, SlurmJob::Submit(script));
  output_path_ = absl::StrCat(work_dir_, "/slurm-", job_id_, ".out");
  observer_.Note(absl::StrCat("submitted ", script, " as job ", job_id_, "; its output goes to ", output_path_));
  record_.job_id = job_id_;
  return record_.Write();
}

void SlurmLauncher::OnOutputLine(const std::string& line) {
  // srun --label: "2: text" (the rank padded to the width of the largest).
  const absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(line);
  const size_t colon = trimmed.find(": ");
  size_t rank = 0;
  if (colon != absl::string_view::npos && absl::SimpleAtoi(trimmed.substr(0, colon), &rank) &&
      rank < rank_names_.size()) {
    observer_.TaskLine(rank_names_[rank], std::string(trimmed.substr(colon + 2)));
    return;
  }
  observer_.Note(line);  // srun's and SLURM's own lines
}

void SlurmLauncher::ReadNewOutput() {
  std::ifstream file(output_path_, std::ios::binary);
  if (!file) return;  // not there before the job starts
  file.seekg(static_cast<std::streamoff>(output_offset_));
  std::string chunk((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  output_offset_ += chunk.size();
  partial_line_ += chunk;
  size_t newline;
  while ((newline = partial_line_.find('\n')) != std::string::npos) {
    OnOutputLine(partial_line_.substr(0, newline));
    partial_line_.erase(0, newline + 1);
  }
}

Status SlurmLauncher::WaitForStep() {
  for (;;) {
    if (std::optional<int> status = step_->Wait(options_.poll)) {
      step_.reset();  // joins the reader: every line is out
      record_.Remove();
      if (*status == 0) return OkStatus();
      return errors::Unknown("the job step ended with status ", *status);
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_requested_) {
      step_->Stop();
      stop_requested_ = false;
    }
  }
}

Status SlurmLauncher::Wait() {
  if (step_) return WaitForStep();
  if (job_id_.empty()) return errors::FailedPrecondition("no job was submitted");
  std::string last_state;
  bool cancel_sent = false;
  SlurmJobStatus status;
  for (;;) {
    ReadNewOutput();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_requested_ && !cancel_sent) {
        cancel_sent = true;
        observer_.Note(absl::StrCat("cancelling job ", job_id_));
        if (Status cancelled = SlurmJob::Cancel(job_id_); !cancelled.ok())
          observer_.Note(std::string(cancelled.message()));
      }
    }
    CLAB_ASSIGN_OR_RETURN(status, SlurmJob::Query(job_id_));
    if (status.state != last_state) {
      last_state = status.state;
      observer_.JobState(job_id_, status.state, status.reason);
    }
    if (status.ended) break;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, options_.poll, [&] { return stop_requested_ && !cancel_sent; });
  }
  ReadNewOutput();
  if (!partial_line_.empty()) OnOutputLine(partial_line_);
  record_.Remove();
  if (status.state == "COMPLETED") return OkStatus();
  if (status.state == "CANCELLED") return errors::Cancelled("job ", job_id_, " was cancelled");
  return errors::Unknown("job ", job_id_, " ended ", status.state, " (exit code ", status.exit_code, ", reason ",
                         status.reason, "); its output: ", output_path_);
}

void SlurmLauncher::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_requested_ = true;
  cv_.notify_all();
}

Status SlurmLauncher::StopRecorded(const LaunchRecord& record, LaunchObserver& observer) {
  if (record.job_id.empty()) return errors::FailedPrecondition("the launch record names no SLURM job");
  observer.Note(absl::StrCat("cancelling job ", record.job_id));
  CLAB_RETURN_IF_ERROR(SlurmJob::Cancel(record.job_id));
  record.Remove();
  return OkStatus();
}

}  // namespace clab::launch
