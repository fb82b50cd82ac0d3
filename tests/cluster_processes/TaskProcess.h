// Cluster tasks as real processes for tests: `clab server` (or the seed program) started
// with QProcess on free loopback ports, its output collected, stopped with SIGTERM or killed
// with SIGKILL. Each test kills only the processes it started (the destructor does).
#pragma once

#include "ClabProcess.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QThread>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <vector>

namespace clab::testing {

// Distinct ports nothing listens on right now: all bound to port 0 at once, then released.
inline std::vector<int> FreePorts(int count) {
  std::vector<int> fds;
  std::vector<int> ports;
  for (int i = 0; i < count; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ports.push_back(ntohs(addr.sin_port));
    fds.push_back(fd);
  }
  for (int fd : fds) ::close(fd);
  return ports;
}

class TaskProcess {
 public:
  // Starts `program` (a file in the build's bin directory) with `args`, in `wrapper` (e.g.
  // {"ip", "netns", "exec", "ns"}) when given.
  TaskProcess(const QString& program, const QStringList& args, const QStringList& wrapper = {}) {
    process_.setProcessChannelMode(QProcess::MergedChannels);
    process_.setWorkingDirectory(QDir::tempPath());
    const QString path = ClabProcess::programPath(program);
    if (wrapper.isEmpty()) {
      process_.start(path, args);
    } else {
      process_.start(wrapper.first(), wrapper.mid(1) + QStringList{path} + args);
    }
    process_.waitForStarted(10000);
  }
  ~TaskProcess() {
    if (process_.state() != QProcess::NotRunning) {
      process_.kill();
      process_.waitForFinished(5000);
    }
  }

  // `clab server` for one task of `cluster`.
  static std::unique_ptr<TaskProcess> Server(const QString& cluster, const QString& job, int task) {
    return std::make_unique<TaskProcess>(
        "clab", QStringList{"server", "--cluster", cluster, "--job_name", job, "--task_index", QString::number(task)});
  }

  bool crashed() const {
    return process_.state() == QProcess::NotRunning && process_.exitStatus() == QProcess::CrashExit;
  }
  bool running() const { return process_.state() == QProcess::Running; }
  qint64 pid() const { return process_.processId(); }
  // Why the process could not start or ended abnormally, in QProcess's words.
  QString errorString() const { return process_.errorString(); }

  // Waits until the output contains `text`; false at the timeout or when the process ended.
  bool waitForOutput(const QString& text, int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    for (;;) {
      collect();
      if (output_.contains(text)) return true;
      if (process_.state() == QProcess::NotRunning || timer.elapsed() > timeoutMs) return false;
      process_.waitForReadyRead(50);
    }
  }
  // Waits until `text` occurs at least `count` times in the output.
  bool waitForCount(const QString& text, int count, int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    for (;;) {
      collect();
      if (output_.count(text) >= count) return true;
      if (process_.state() == QProcess::NotRunning || timer.elapsed() > timeoutMs) return false;
      process_.waitForReadyRead(50);
    }
  }
  bool waitUntilServing(int timeoutMs = 20000) { return waitForOutput("Serving /job:", timeoutMs); }

  QString output() {
    collect();
    return output_;
  }
  // Takes in what the process has written so far, without waiting: a process that prints
  // every step must never block on a full pipe while the test looks elsewhere.
  void drain() {
    if (process_.state() != QProcess::NotRunning) process_.waitForReadyRead(0);
    collect();
  }

  // SIGTERM; the exit code, or -1 when it had to be killed or crashed.
  int terminate(int timeoutMs = 10000) {
    if (process_.state() != QProcess::NotRunning) ::kill(static_cast<pid_t>(process_.processId()), SIGTERM);
    return waitForExit(timeoutMs);
  }
  void killHard() {
    process_.kill();
    process_.waitForFinished(5000);
  }
  // The exit code, or -1 at the timeout (the process is then killed) or after a crash.
  int waitForExit(int timeoutMs) {
    if (!process_.waitForFinished(timeoutMs) && process_.state() != QProcess::NotRunning) {
      killHard();
      return -1;
    }
    collect();
    return process_.exitStatus() == QProcess::NormalExit ? process_.exitCode() : -1;
  }

 private:
  void collect() { output_ += QString::fromUtf8(process_.readAll()); }

  QProcess process_;
  QString output_;
};

}  // namespace clab::testing
