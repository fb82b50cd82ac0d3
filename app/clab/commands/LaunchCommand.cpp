#include "commands/LaunchCommand.h"

#include "clab/core/TerminationSignal.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "launch/observe/LaunchEvents.h"
#include "launch/observe/LaunchLog.h"
#include "launch/project/ProjectFile.h"
#include "launch/record/LaunchRecord.h"
#include "launch/slurm/SlurmJob.h"
#include "launch/slurm/SlurmLauncher.h"
#include "launch/ssh/SshLauncher.h"

#include <absl/strings/str_cat.h>
#include <signal.h>

#include <cstdlib>
#include <fstream>
#include <ostream>
#include <thread>

namespace clab::cli {
namespace {

// The `clab launch` process of a record, while it still runs (a pid, once free, may be
// another program's).
bool LauncherAlive(long pid) {
  if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) != 0) return false;
  std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
  std::string program, command;
  std::getline(cmdline, program, '\0');
  std::getline(cmdline, command, '\0');
  return command == "launch";
}

// Runs a launcher until it is over; SIGINT or SIGTERM stop it (once), and it goes on until
// what it started has ended.
template <typename Launcher>
Status RunUntilOver(Launcher& launcher) {
  TerminationSignal signal;
  std::thread stopper([&] {
    if (signal.Wait() != 0) launcher.Stop();
  });
  Status status = launcher.Start();
  if (status.ok()) status = launcher.Wait();
  signal.Cancel();
  stopper.join();
  return status;
}

}  // namespace

std::string LaunchCommand::description() const {
  return "Starts every task of the project where the project says, with the systems that run\n"
         "clusters there, and follows the run to its end:\n\n"
         "  --via ssh    each task on its host with OpenSSH (your ssh configuration, keys and\n"
         "               agent; never a password), detached from the connection, its output\n"
         "               streamed back; the project's per-host settings say the user, port,\n"
         "               ClusterLab program and data directory (--copy_binary copies this one).\n"
         "               A failed task is started again (launch.ssh.restart); an unreachable\n"
         "               host, a missing program or a port in use is named with its task.\n"
         "  --via slurm  a batch job (sbatch) of as many tasks as the cluster has; each task\n"
         "               finds its address from SLURM's environment as TensorFlow's\n"
         "               SlurmClusterResolver does (see 'clab slurm spec'). Inside an\n"
         "               allocation (salloc) the step runs there with srun, unless --sbatch.\n\n"
         "The default is the project's launch.method. Ctrl-C stops the run: over ssh the very\n"
         "processes this launch started (by process id, SIGTERM then SIGKILL), through SLURM\n"
         "the job (scancel). --stop does the same for a launch running elsewhere, from the\n"
         "record it keeps; --status shows that record. --events prints JSON lines instead of\n"
         "text (the studio reads them).\n\n"
         "Examples:\n"
         "  clab launch examples/projects/digits-mlp.clab --via ssh --copy_binary\n"
         "  clab launch digits.clab --via slurm --work_dir /shared/jobs\n"
         "  clab launch digits.clab --stop";
}

void LaunchCommand::DeclareFlags(FlagParser& flags) {
  flags.AddPositional("PROJECT", "a .clab project", &project_);
  flags.AddString("via", "METHOD", "ssh or slurm (default: the project's launch.method)", &via_);
  flags.AddBool("stop", "stop the launch of PROJECT that is running (from its record)", &stop_);
  flags.AddBool("status", "show the record of the launch of PROJECT that is running", &status_);
  flags.AddBool("copy_binary", "ssh: copy this ClusterLab to each host's data directory (scp)", &copy_binary_);
  flags.AddString("ssh_config", "FILE", "ssh: use this ssh configuration file (ssh -F)", &ssh_config_);
  flags.AddInt("wait_for_watcher_ms", "MS", "ssh: workers wait this long for a watcher before they start",
               &wait_for_watcher_ms_, 0);
  flags.AddInt("finish_grace", "SECONDS", "ssh: once the workers ended, how long the other tasks may take to end",
               &finish_grace_s_, 0);
  flags.AddString("work_dir", "DIR", "slurm: the job's directory, seen from the nodes (default: PROJECT.slurm)",
                  &work_dir_);
  flags.AddBool("sbatch", "slurm: submit a batch job even inside an allocation", &sbatch_);
  flags.AddBool("events", "print JSON lines, one per event", &events_);
}

Status LaunchCommand::StopRecorded(std::ostream& out) {
  CLAB_ASSIGN_OR_RETURN(const launch::LaunchRecord record, launch::LaunchRecord::Read(project_));
  launch::LaunchLog log(out);
  if (LauncherAlive(record.launcher_pid)) {
    // The launch that runs stops its own tasks, and knows not to start them again.
    out << "Stopping the launch of " << project_ << " (clab launch, pid " << record.launcher_pid << ")" << std::endl;
    ::kill(static_cast<pid_t>(record.launcher_pid), SIGTERM);
    for (int i = 0; i < 1200 && LauncherAlive(record.launcher_pid); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (LauncherAlive(record.launcher_pid))
      return errors::DeadlineExceeded("the launch (pid ", record.launcher_pid, ") did not end within 2 minutes");
    out << "Stopped." << std::endl;
    return OkStatus();
  }
  if (record.method == "slurm") return launch::SlurmLauncher::StopRecorded(record, log);
  CLAB_RETURN_IF_ERROR(launch::SshLauncher::StopRecorded(record, log, 5));
  out << "Stopped " << record.tasks.size() << " tasks." << std::endl;
  return OkStatus();
}

Status LaunchCommand::ShowStatus(std::ostream& out) {
  CLAB_ASSIGN_OR_RETURN(const launch::LaunchRecord record, launch::LaunchRecord::Read(project_));
  out << "Launch of " << record.project << " via " << record.method << ", followed by clab launch (pid "
      << record.launcher_pid << (LauncherAlive(record.launcher_pid) ? ", running" : ", gone") << ")" << std::endl;
  if (!record.job_id.empty()) {
    auto job = launch::SlurmJob::Query(record.job_id);
    out << "  job " << record.job_id << ": "
        << (job.ok() ? absl::StrCat(job->state, job->reason.empty() ? "" : " (" + job->reason + ")")
                     : std::string(job.status().message()))
        << std::endl;
    if (!record.work_dir.empty())
      out << "  output: " << record.work_dir << "/slurm-" << record.job_id << ".out" << std::endl;
  }
  for (const launch::LaunchRecord::Task& task : record.tasks)
    out << "  " << task.name << " on " << task.host << ": pid " << task.pid << ", log " << task.log << std::endl;
  return OkStatus();
}

Status LaunchCommand::Run(std::ostream& out) {
  if (stop_) return StopRecorded(out);
  if (status_) return ShowStatus(out);
  CLAB_ASSIGN_OR_RETURN(launch::ProjectFile project, launch::ProjectFile::Read(project_));
  const std::string via = via_.empty() ? project.launch.method : via_;
  std::unique_ptr<launch::LaunchObserver> observer;
  launch::LaunchEvents* events = nullptr;
  if (events_) {
    auto owned = std::make_unique<launch::LaunchEvents>(out);
    events = owned.get();
    observer = std::move(owned);
  } else {
    observer = std::make_unique<launch::LaunchLog>(out);
  }
  Status status;
  if (via == "ssh") {
    if (copy_binary_) project.launch.ssh.copy_binary = true;
    launch::SshLaunchOptions options;
    options.ssh_config = ssh_config_;
    options.wait_for_watcher_ms = wait_for_watcher_ms_;
    options.finish_grace = std::chrono::seconds(finish_grace_s_);
    launch::SshLauncher launcher(project, options, *observer);
    status = RunUntilOver(launcher);
  } else if (via == "slurm") {
    launch::SlurmLaunchOptions options;
    options.work_dir = work_dir_;
    options.in_allocation = !sbatch_ && std::getenv("SLURM_JOB_ID") != nullptr;
    launch::SlurmLauncher launcher(project, options, *observer);
    status = RunUntilOver(launcher);
  } else if (via == "local") {
    return UsageError(absl::StrCat(project_,
                                   " runs on this machine (launch.method local): run it with the studio's Run "
                                   "('clab train' for a training program, 'clab demo' for the seed), or pass --via ssh "
                                   "or --via slurm"));
  } else if (via == "kubernetes") {
    return UsageError(
        absl::StrCat("Kubernetes runs what 'clab export ", project_, " --k8s DIR' writes: kubectl apply -f DIR"));
  } else {
    return UsageError(absl::StrCat("--via '", via, "' is not a launch method (ssh, slurm)"));
  }
  if (events) events->Finished(status.ok(), status.ok() ? "the run is over" : std::string(status.message()));
  if (status.ok() && !events) out << "clab launch: the run is over." << std::endl;
  return status;
}

}  // namespace clab::cli
