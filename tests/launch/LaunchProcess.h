// A `clab` command the launch tests run (a launch, a watch, a stop), possibly inside a
// network namespace, with its output collected. A launch started this way is stopped as a
// person would stop it (SIGTERM, then the time it needs to stop what it started) when the
// test ends early, so that no task it started is left behind.
#pragma once

#include "ClabProcess.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QProcessEnvironment>

#include <signal.h>

namespace clab::testing {

class LaunchProcess {
 public:
  // `wrapper`: e.g. {"ip", "netns", "exec", "ns"}; the environment is the test's own.
  explicit LaunchProcess(const QStringList& args, const QStringList& wrapper = {}) {
    process_.setProcessChannelMode(QProcess::MergedChannels);
    const QStringList command = wrapper + QStringList{ClabProcess::programPath("clab")} + args;
    process_.start(command.first(), command.mid(1));
    process_.waitForStarted(5000);
  }
  ~LaunchProcess() {
    if (process_.state() == QProcess::NotRunning) return;
    ::kill(static_cast<pid_t>(process_.processId()), SIGTERM);
    if (!process_.waitForFinished(60000)) process_.kill();
    process_.waitForFinished(5000);
  }

  QString output() { return text_ += QString::fromUtf8(process_.readAll()); }
  bool running() const { return process_.state() != QProcess::NotRunning; }

  // Until the output holds `text` (true), or the process ended or the time is up (false).
  bool waitFor(const QString& text, int timeout_ms) { return waitForCount(text, 1, timeout_ms); }
  bool waitForCount(const QString& text, int count, int timeout_ms) {
    QElapsedTimer timer;
    timer.start();
    while (output().count(text) < count && running() && timer.elapsed() < timeout_ms) process_.waitForReadyRead(200);
    return output().count(text) >= count;
  }
  // The exit code once it ended, -1 when it did not within the time or crashed.
  int finish(int timeout_ms) {
    process_.waitForFinished(timeout_ms);
    output();
    if (running() || process_.exitStatus() != QProcess::NormalExit) return -1;
    return process_.exitCode();
  }

 private:
  QProcess process_;
  QString text_;
};

}  // namespace clab::testing
