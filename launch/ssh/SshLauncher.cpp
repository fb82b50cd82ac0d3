#include "launch/ssh/SshLauncher.h"

#include "clab/distributed/ClusterAccess.h"
#include "launch/process/CommandRun.h"
#include "launch/project/TextFile.h"
#include "launch/ssh/RemoteScript.h"
#include "launch/task/TaskCommand.h"

#include <absl/strings/match.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <unistd.h>

#include <filesystem>
#include <map>

namespace clab::launch {
namespace {

constexpr int kSshFailed = 255;
constexpr size_t kRecentLines = 20;
constexpr const char* kPortInUse = "the port is already in use";

// "clab-launch: KEY VALUE" -> (KEY, VALUE); nullopt for the task's own lines.
std::optional<std::pair<std::string, std::string>> ParseMarker(const std::string& line) {
  if (!absl::StartsWith(line, RemoteScript::kMarker)) return std::nullopt;
  const std::string rest = line.substr(std::string(RemoteScript::kMarker).size());
  const size_t space = rest.find(' ');
  if (space == std::string::npos) return std::make_pair(rest, std::string());
  return std::make_pair(rest.substr(0, space), rest.substr(space + 1));
}

}  // namespace

SshLauncher::SshLauncher(ProjectFile project, SshLaunchOptions options, LaunchObserver& observer)
    : project_(std::move(project)), options_(std::move(options)),
      ssh_config_(options_.ssh_config.empty() ? project_.launch.ssh.config : options_.ssh_config), observer_(observer) {
}

SshLauncher::~SshLauncher() {
  bool running = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& task : tasks_) running = running || task->stream != nullptr;
  }
  if (running) {
    Stop();
    Wait().IgnoreError();
  }
  for (std::thread& stopper : stoppers_)
    if (stopper.joinable()) stopper.join();
  if (!graph_dir_.empty()) {
    std::error_code error;
    std::filesystem::remove_all(graph_dir_, error);
  }
}

Status SshLauncher::PrepareHosts() {
  std::unique_ptr<LocalInstallation> copy;
  if (project_.launch.ssh.copy_binary) {
    const std::string program = options_.local_program.empty() ? ChildProcess::SelfPath() : options_.local_program;
    CLAB_ASSIGN_OR_RETURN(LocalInstallation found, LocalInstallation::Find(program));
    copy = std::make_unique<LocalInstallation>(std::move(found));
  }
  SshHostSetup::What what;
  what.copy = copy.get();
  if (!project_.graph.empty()) {
    char dir[] = "/tmp/clab-launch-XXXXXX";
    if (::mkdtemp(dir) == nullptr) return errors::Unavailable("cannot make a temporary directory for the graph");
    graph_dir_ = dir;
    what.graph_file = absl::StrCat(graph_dir_, "/", project_.Stem(), ".graph.pbtxt");
    CLAB_RETURN_IF_ERROR(WriteTextFile(what.graph_file, project_.graph));
  }
  std::map<std::string, Host*> by_name;
  for (const ProjectFile::Task& task : project_.Tasks()) {
    if (by_name.count(task.host) > 0) continue;
    hosts_.push_back(std::make_unique<Host>(Host{
        SshTarget(task.host, project_.launch.ForHost(task.host), ssh_config_, project_.launch.ssh.connect_timeout_s),
        {}}));
    by_name[task.host] = hosts_.back().get();
  }
  for (const auto& host : hosts_)
    observer_.Note(
        absl::StrCat("getting ", host->target.Describe(), " ready", copy ? " (copying ClusterLab there)" : ""));
  // A protected cluster: each host gets its own tasks' credentials, and no other's.
  std::vector<SshHostSetup::What> per_host(hosts_.size(), what);
  if (!project_.security.tls_dir.empty()) {
    std::vector<std::string> missing;
    for (const ProjectFile::Task& task : project_.Tasks()) {
      auto found = TaskCredentials::Find(project_.security, task.job, task.index);
      if (!found.ok()) {
        observer_.TaskProblem(task.name(), std::string(found.status().message()));
        missing.push_back(absl::StrCat(task.name(), ": ", found.status().message()));
        continue;
      }
      for (size_t i = 0; i < hosts_.size(); ++i) {
        if (hosts_[i]->target.host() != task.host) continue;
        per_host[i].credentials.push_back(*found);
        per_host[i].credentials_dir = project_.Stem();
      }
    }
    if (!missing.empty()) return errors::FailedPrecondition(absl::StrJoin(missing, "\n"));
  }
  std::vector<Status> results(hosts_.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < hosts_.size(); ++i) {
    threads.emplace_back([&, i] {
      auto prepared = SshHostSetup::Prepare(hosts_[i]->target, per_host[i]);
      if (prepared.ok()) {
        hosts_[i]->prepared = *std::move(prepared);
      } else {
        results[i] = prepared.status();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  std::vector<std::string> problems;
  for (size_t i = 0; i < hosts_.size(); ++i) {
    const Host& host = *hosts_[i];
    if (results[i].ok()) {
      observer_.Note(absl::StrCat(host.target.Describe(), " (", host.prepared.hostname, "): ", host.prepared.version,
                                  " at ", host.prepared.binary));
      continue;
    }
    for (const ProjectFile::Task& task : project_.Tasks()) {
      if (task.host != host.target.host()) continue;
      observer_.TaskProblem(task.name(), std::string(results[i].message()));
      problems.push_back(absl::StrCat(task.name(), ": ", results[i].message()));
    }
  }
  if (!problems.empty()) return errors::FailedPrecondition(absl::StrJoin(problems, "\n"));

  for (const ProjectFile::Task& def : project_.Tasks()) {
    auto task = std::make_unique<Task>();
    task->def = def;
    task->name = def.name();
    task->host = by_name[def.host];
    TaskCommandOptions command;
    command.cluster = project_.cluster.ToInline();
    command.job = def.job;
    command.index = def.index;
    command.graph_path = task->host->prepared.graph_path;
    const std::string host_checkpoints = task->host->target.settings().checkpoint_dir;
    command.checkpoint_dir = host_checkpoints.empty() ? project_.run.checkpoint_dir : host_checkpoints;
    command.wait_for_watcher_ms = options_.wait_for_watcher_ms;
    const auto staged = task->host->prepared.credential_dirs.find(TaskCertificateName(def.job, def.index));
    if (staged != task->host->prepared.credential_dirs.end())
      command.security = TaskCredentials::InDirectory(project_.security, staged->second);
    task->args = TaskArguments(project_, command);
    tasks_.push_back(std::move(task));
  }
  return OkStatus();
}

Status SshLauncher::Start() {
  if (project_.cluster.empty()) return errors::InvalidArgument(project_.path, ": the cluster has no task");
  CLAB_RETURN_IF_ERROR(PrepareHosts());
  std::lock_guard<std::mutex> lock(mu_);
  record_.method = "ssh";
  record_.project = project_.path;
  record_.launcher_pid = ::getpid();
  record_.ssh_config = ssh_config_;
  for (auto& task : tasks_) StartTask(*task);
  WriteRecord();
  return OkStatus();
}

void SshLauncher::StartTask(Task& task) {
  ++task.starts;
  task.exit_status.reset();
  task.start_problem.clear();
  task.port_in_use = false;
  task.pid = 0;
  task.stop_sent = false;
  task.ended = false;
  task.recent.clear();
  const PreparedHost& host = task.host->prepared;
  task.log = absl::StrCat(host.data_dir, "/logs/", project_.Stem(), "-", task.def.job, "-", task.def.index,
                          task.starts > 1 ? absl::StrCat(".", task.starts) : "", ".log");
  const std::vector<std::string> argv = task.host->target.SshCommand(
      RemoteScript::AsCommand(RemoteScript::Start(host.binary, host.library_dir, task.args, task.log)));
  Task* target = &task;
  auto stream = ChildProcess::Start(
      argv[0], std::vector<std::string>(argv.begin() + 1, argv.end()),
      [this, target](const std::string& line) { OnLine(*target, line); },
      ChildProcess::Options{.own_process_group = true});
  if (!stream.ok()) {
    Fail(task, std::string(stream.status().message()));
    return;
  }
  task.stream = *std::move(stream);
}

void SshLauncher::OnLine(Task& task, const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto marker = ParseMarker(line)) {
    const auto& [key, value] = *marker;
    long number = 0;
    if (key == "pid" && absl::SimpleAtoi(value, &number)) {
      task.pid = number;
      observer_.TaskStarted(task.name, task.host->prepared.hostname, number);
      WriteRecord();
    } else if (key == "exit" && absl::SimpleAtoi(value, &number)) {
      task.exit_status = static_cast<int>(number);
    } else if (key == "no-binary") {
      task.start_problem = absl::StrCat("no ClusterLab program '", value, "' on ", task.host->target.Describe());
    } else if (key == "no-log") {
      task.start_problem = absl::StrCat("cannot write the log file '", value, "' on ", task.host->target.Describe());
    } else if (key == "no-pid") {
      task.start_problem = absl::StrCat("the task did not start on ", task.host->target.Describe());
    }
    cv_.notify_all();
    return;
  }
  task.recent.push_back(line);
  if (task.recent.size() > kRecentLines) task.recent.pop_front();
  if (line.find(kPortInUse) != std::string::npos) task.port_in_use = true;
  // Before the task runs, the lines are ssh's own (warnings, errors): kept for a report.
  if (task.pid != 0) observer_.TaskLine(task.name, line);
}

void SshLauncher::Fail(Task& task, const std::string& problem) {
  task.ended = true;
  problems_.push_back(absl::StrCat(task.name, ": ", problem));
  observer_.TaskProblem(task.name, problem);
  stop_requested_ = true;
  cv_.notify_all();
}

void SshLauncher::OnStreamEnded(Task& task, int ssh_status) {
  const std::string on_host = absl::StrCat(" on ", task.host->target.Describe());
  const std::string last_line = task.recent.empty() ? "" : absl::StrCat(": ", task.recent.back());
  if (task.exit_status) {
    const int status = *task.exit_status;
    observer_.TaskEnded(task.name, status, task.stop_requested);
    if (status == 0 || task.stop_requested) {
      task.ended = true;
      task.succeeded = status == 0 && !task.stop_requested;
      return;
    }
    if (task.port_in_use) {
      Fail(task, absl::StrCat("port ", task.def.port, " is in use on ", task.host->target.host(),
                              ": another program listens there; stop it, or give the task another port"));
      return;
    }
    const SshOptions& ssh = project_.launch.ssh;
    if (!stop_requested_ && ssh.restart == "on-failure" && task.starts <= ssh.max_restarts) {
      observer_.Note(absl::StrCat("restarting ", task.name, on_host, " (it ended with status ", status, "; restart ",
                                  task.starts, " of at most ", ssh.max_restarts, ")"));
      StartTask(task);
      return;
    }
    Fail(task, absl::StrCat("ended with status ", status, on_host, last_line));
    return;
  }
  if (!task.start_problem.empty()) {
    Fail(task, task.start_problem);
  } else if (ssh_status == kSshFailed && task.pid == 0) {
    Fail(task, std::string(
                   SshHostSetup::Unreachable(task.host->target, task.recent.empty() ? "ssh failed" : task.recent.back())
                       .message()));
  } else if (task.pid != 0 && task.stop_sent) {
    task.ended = true;
    observer_.TaskEnded(task.name, 128 + 15, true);
  } else if (task.pid != 0) {
    Fail(task, absl::StrCat("lost the connection to ", task.host->target.Describe(), " while the task ran (pid ",
                            task.pid, "); `clab launch --stop` ends it"));
  } else {
    Fail(task, absl::StrCat("its start", on_host, " ended with status ", ssh_status, last_line));
  }
}

void SshLauncher::SendStops() {
  std::map<Host*, std::vector<Task*>> by_host;
  for (auto& task : tasks_)
    if (task->stop_requested && !task->stop_sent && !task->ended && task->pid != 0)
      by_host[task->host].push_back(task.get());
  for (auto& [host, tasks] : by_host) {
    std::vector<long> pids;
    for (Task* task : tasks) {
      task->stop_sent = true;
      pids.push_back(task->pid);
    }
    const std::vector<std::string> argv = host->target.SshCommand(
        RemoteScript::AsCommand(RemoteScript::Stop(pids, host->prepared.binary, options_.stop_grace_s)));
    const auto timeout = std::chrono::seconds(options_.stop_grace_s + project_.launch.ssh.connect_timeout_s + 10);
    stoppers_.emplace_back([this, argv, timeout, tasks = tasks, host = host] {
      auto result = RunCommand(argv, timeout);
      if (result.ok() && result->exit_status == 0) return;
      const std::string why = result.ok() ? result->Output() : std::string(result.status().message());
      std::lock_guard<std::mutex> lock(mu_);
      for (Task* task : tasks)
        observer_.TaskProblem(
            task->name, absl::StrCat("could not stop pid ", task->pid, " on ", host->target.Describe(), ": ", why));
    });
  }
}

bool SshLauncher::AllWorkersEnded() const {
  for (const auto& task : tasks_)
    if (task->def.job == "worker" && !task->ended) return false;
  return true;
}

bool SshLauncher::AllEnded() const {
  for (const auto& task : tasks_)
    if (!task->ended) return false;
  return true;
}

void SshLauncher::WriteRecord() {
  record_.tasks.clear();
  for (const auto& task : tasks_) {
    record_.tasks.push_back({task->name, task->host->target.host(), task->host->target.settings(),
                             task->host->prepared.binary, task->log, task->ended ? 0 : task->pid});
  }
  if (Status written = record_.Write(); !written.ok()) observer_.Note(std::string(written.message()));
}

void SshLauncher::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_requested_ = true;
  cv_.notify_all();
}

Status SshLauncher::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  bool stopped_by_request = false;
  for (;;) {
    // Ended streams are destroyed without the lock (that joins their readers, whose last
    // lines take it); their ends are handled after.
    std::vector<std::pair<Task*, int>> ended;
    std::vector<std::unique_ptr<ChildProcess>> finished;
    for (auto& task : tasks_) {
      if (!task->stream) continue;
      if (std::optional<int> status = task->stream->Wait(std::chrono::milliseconds(0))) {
        ended.emplace_back(task.get(), *status);
        finished.push_back(std::move(task->stream));
      }
    }
    if (!finished.empty()) {
      lock.unlock();
      finished.clear();
      lock.lock();
      for (auto& [task, status] : ended) OnStreamEnded(*task, status);
      WriteRecord();
      continue;
    }
    const auto now = std::chrono::steady_clock::now();
    if (stop_requested_ && !stopping_) {
      stopping_ = true;
      stopped_by_request = problems_.empty() && !AllWorkersEnded();
      stop_deadline_ = now + std::chrono::seconds(options_.stop_grace_s + project_.launch.ssh.connect_timeout_s + 20);
      for (auto& task : tasks_)
        if (!task->ended) task->stop_requested = true;
    }
    if (stopping_) {
      SendStops();
      if (AllEnded()) break;
      if (now > *stop_deadline_) {
        // What still streams after the stop and its grace: given up on, and said so.
        std::vector<std::unique_ptr<ChildProcess>> abandoned;
        for (auto& task : tasks_) {
          if (task->ended) continue;
          task->ended = true;
          observer_.TaskProblem(task->name, absl::StrCat("did not end after the stop (pid ", task->pid, " on ",
                                                         task->host->target.Describe(), ")"));
          if (task->stream) abandoned.push_back(std::move(task->stream));
        }
        lock.unlock();
        abandoned.clear();
        lock.lock();
        break;
      }
    } else if (AllWorkersEnded()) {
      if (AllEnded()) break;
      if (!finish_deadline_) {
        finish_deadline_ = now + options_.finish_grace;
        observer_.Note("every worker has ended; the other tasks stop by themselves");
      } else if (now > *finish_deadline_) {
        observer_.Note("stopping the tasks that are left");
        stop_requested_ = true;
        continue;
      }
    }
    cv_.wait_for(lock, std::chrono::milliseconds(100));
  }
  std::vector<std::thread> stoppers = std::move(stoppers_);
  lock.unlock();
  for (std::thread& stopper : stoppers) stopper.join();
  lock.lock();
  record_.Remove();
  if (!problems_.empty()) return errors::Unavailable(absl::StrJoin(problems_, "\n"));
  if (stopped_by_request) return errors::Cancelled("stopped before the workers finished");
  for (const auto& task : tasks_)
    if (task->def.job == "worker" && !task->succeeded)
      return errors::Unknown(task->name, " did not finish its training");
  return OkStatus();
}

Status SshLauncher::StopRecorded(const LaunchRecord& record, LaunchObserver& observer, int grace_s) {
  std::map<std::string, std::vector<const LaunchRecord::Task*>> by_host;
  for (const LaunchRecord::Task& task : record.tasks)
    if (task.pid != 0) by_host[task.host].push_back(&task);
  std::vector<std::string> problems;
  for (const auto& [host, tasks] : by_host) {
    SshTarget target(host, tasks.front()->ssh, record.ssh_config, 10);
    std::vector<long> pids;
    for (const LaunchRecord::Task* task : tasks) pids.push_back(task->pid);
    auto result =
        RunCommand(target.SshCommand(RemoteScript::AsCommand(RemoteScript::Stop(pids, tasks.front()->binary, grace_s))),
                   std::chrono::seconds(grace_s + 30));
    if (!result.ok() || result->exit_status != 0) {
      const std::string why = result.ok() ? result->Output() : std::string(result.status().message());
      for (const LaunchRecord::Task* task : tasks) {
        observer.TaskProblem(task->name,
                             absl::StrCat("could not stop pid ", task->pid, " on ", target.Describe(), ": ", why));
        problems.push_back(absl::StrCat(task->name, ": ", why));
      }
      continue;
    }
    for (const LaunchRecord::Task* task : tasks) observer.TaskEnded(task->name, 128 + 15, true);
  }
  if (!problems.empty()) return errors::Unavailable(absl::StrJoin(problems, "\n"));
  record.Remove();
  return OkStatus();
}

}  // namespace clab::launch
