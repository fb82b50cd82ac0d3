// Runs a project's cluster on its hosts with OpenSSH: `clab launch PROJECT --via ssh` and the
// studio's Run > On hosts. Each host is got ready first (SshHostSetup: data directory,
// ClusterLab found or copied, the project's graph, for a protected cluster each task's own
// credentials in a private directory); then each task starts on its host,
// detached from the connection, at its address in the project, and its output comes back
// line by line with its name. A task whose process fails is started again as the project's
// restart policy says (launch.ssh.restart); a port in use, a missing program or an
// unreachable host is reported for the task it concerns and ends the launch. When every
// worker has finished, the other tasks (which stop by themselves once the workers are done)
// are given a while to end and are then stopped. Stop() ends exactly the processes this
// launch started (their process ids on each host, SIGTERM then SIGKILL, over ssh), and so
// does `clab launch --stop` from elsewhere through the launch record.
#pragma once

#include "clab/core/Status.h"
#include "launch/observe/LaunchObserver.h"
#include "launch/process/ChildProcess.h"
#include "launch/project/ProjectFile.h"
#include "launch/record/LaunchRecord.h"
#include "launch/ssh/SshHostSetup.h"
#include "launch/ssh/SshTarget.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace clab::launch {

struct SshLaunchOptions {
  std::string ssh_config;     // ssh -F FILE ("" : the project's launch.ssh.config, else ssh's own)
  std::string local_program;  // what copy_binary copies ("" : this program)
  int stop_grace_s = 5;       // SIGTERM, then SIGKILL after this long
  // After the workers ended, how long the other tasks have to end by themselves.
  std::chrono::seconds finish_grace{20};
  int64_t wait_for_watcher_ms = 0;  // workers wait for a watcher (the studio's) this long
};

class SshLauncher {
 public:
  SshLauncher(ProjectFile project, SshLaunchOptions options, LaunchObserver& observer);
  ~SshLauncher();
  SshLauncher(const SshLauncher&) = delete;
  SshLauncher& operator=(const SshLauncher&) = delete;

  // Gets every host ready (in parallel) and starts every task. A problem with a host is
  // reported for each of its tasks and returned; nothing is started then.
  Status Start();
  // Until the run is over: OK when every worker finished well; else what went wrong,
  // naming the tasks.
  Status Wait();
  // From any thread: ends every task of this launch; Wait() returns once they have ended.
  void Stop();

  // Ends the processes of a launch recorded by another `clab launch` (SIGTERM, then
  // SIGKILL after `grace_s`), host by host over ssh.
  static Status StopRecorded(const LaunchRecord& record, LaunchObserver& observer, int grace_s);

 private:
  struct Host {
    SshTarget target;
    PreparedHost prepared;
  };
  struct Task {
    ProjectFile::Task def;
    std::string name;
    Host* host = nullptr;
    std::vector<std::string> args;
    int starts = 0;
    std::unique_ptr<ChildProcess> stream;  // ssh running the start script
    std::string log;
    long pid = 0;
    std::optional<int> exit_status;  // the task's, from the script
    std::string start_problem;       // the script could not start it
    bool port_in_use = false;
    bool stop_requested = false;
    bool stop_sent = false;
    bool ended = false;
    bool succeeded = false;
    std::deque<std::string> recent;  // its last lines, for reports
  };

  Status PrepareHosts();
  void StartTask(Task& task);
  void OnLine(Task& task, const std::string& line);
  void OnStreamEnded(Task& task, int ssh_status);
  void Fail(Task& task, const std::string& problem);
  void SendStops();
  void WriteRecord();
  bool AllWorkersEnded() const;
  bool AllEnded() const;

  const ProjectFile project_;
  const SshLaunchOptions options_;
  const std::string ssh_config_;
  LaunchObserver& observer_;
  std::vector<std::unique_ptr<Host>> hosts_;
  std::vector<std::unique_ptr<Task>> tasks_;
  std::string graph_dir_;  // a local temporary directory for the project's graph
  LaunchRecord record_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_requested_ = false;  // Stop(), or the launch cannot go on
  bool stopping_ = false;
  std::optional<std::chrono::steady_clock::time_point> finish_deadline_;
  std::optional<std::chrono::steady_clock::time_point> stop_deadline_;
  std::vector<std::string> problems_;
  std::vector<std::thread> stoppers_;
};

}  // namespace clab::launch
