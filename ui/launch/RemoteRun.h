// A run of the project on its hosts, as the studio follows it: `clab launch PROJECT --via ssh`
// or `--via slurm` with --events, in a process of its own, whose JSON lines become signals
// (launch/observe/LaunchEvents.h). The studio keeps no launcher of its own: what the
// command line does is what happens. stop() asks that process to stop, as Ctrl-C would; it
// then ends exactly the tasks it started (or cancels the job) and exits.
#pragma once

#include "project/Project.h"

#include <QHash>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>

#include <memory>
#include <optional>
#include <utility>

namespace clab::ui {

class RemoteRun : public QObject {
  Q_OBJECT

 public:
  explicit RemoteRun(QString clab_program, QObject* parent = nullptr);
  ~RemoteRun() override;

  // `path`: the project's file when it is saved as it is; otherwise a copy is written. The
  // method is the project's launch method. False with `error` when nothing could start.
  bool start(const Project& project, const QString& path, QString* error);
  void stop();
  bool running() const;
  // The command line it ran, for people who want to run it by hand.
  QStringList command() const { return command_; }

 signals:
  void taskStarted(const QString& task, const QString& host, qint64 pid);
  void taskEnded(const QString& task, int status, bool stopped);
  void taskProblem(const QString& task, const QString& problem);
  // Where a task listens, once the launch knows (a SLURM task says so when it starts).
  void taskAddress(const QString& task, const QString& address);
  void jobState(const QString& job, const QString& state, const QString& reason);
  void note(const QString& text);
  // The launch process has ended: how the run went, in its own words.
  void finished(bool ok, const QString& text);

 private:
  void onOutput();
  void handleLine(const QString& line);

  const QString clab_program_;
  std::unique_ptr<QProcess> process_;
  std::unique_ptr<QTemporaryDir> copy_dir_;
  QString partial_;
  QStringList command_;
  // What the launch said last ({"event": "finished"}), told once its process has ended.
  std::optional<std::pair<bool, QString>> outcome_;
};

}  // namespace clab::ui
