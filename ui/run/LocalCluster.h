// Runs a project's cluster on this machine: every task its own process on 127.0.0.1 with a
// free port (`clab server` for ps and other jobs; for workers, each its own client, the
// project's program: `clab example seed`, `clab example train`, or, for a project with a
// graph of its own (edited in the Graph tab), `clab example graph` on that graph). stop() ends exactly these
// processes (SIGTERM, then SIGKILL after a grace period); a process that dies on its own is
// reported with its exit code and last lines of output. When every worker has finished,
// the remaining tasks are stopped: the run is over.
#pragma once

#include "project/Project.h"
#include "run/ProcessEnd.h"

#include <QHash>
#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

namespace clab::ui {

class LocalCluster : public QObject {
  Q_OBJECT

 public:
  explicit LocalCluster(QString clab_program, QObject* parent = nullptr);
  ~LocalCluster() override;

  // False with `error` when a port cannot be found or a process cannot start.
  bool start(const Project& project, QString* error);
  void stop();
  bool running() const;
  // Stop was asked for and some of its processes have not ended yet.
  bool stopping() const;
  // Fault injection: SIGKILL one task (it is reported as crashed), or start it again with
  // the same command line (killing it first if it still runs). False when the task is
  // unknown or no run is going.
  bool killTask(const QString& task);
  bool restartTask(const QString& task);
  bool taskRunning(const QString& task) const;

  // Task name -> "127.0.0.1:port" of the current (or last) run.
  const QHash<QString, QString>& addresses() const { return addresses_; }
  // The command line that starts `task`, for people who want to run it by hand.
  QStringList commandFor(const QString& task) const { return commands_.value(task); }
  QList<qint64> pids() const;

 signals:
  void taskOutput(const QString& task, const QStringList& lines);
  void taskFinished(const QString& task, const clab::ui::ProcessEnd& end, const QString& last_lines);
  void runFinished(bool ok);

 private:
  struct Task {
    QString name;
    bool is_worker = false;
    QStringList args;
    std::unique_ptr<QProcess> process;
    QString partial;     // output after the last newline
    QStringList recent;  // the last lines, for a crash report
    bool finished = false;
    bool stop_requested = false;
    bool kill_requested = false;
  };

  void startProcess(Task* task);
  Task* find(const QString& name) const;
  void onOutput(Task* task);
  void onFinished(Task* task, int exit_code, QProcess::ExitStatus status);

  const QString clab_program_;
  std::vector<std::unique_ptr<Task>> tasks_;
  QHash<QString, QString> addresses_;
  QHash<QString, QStringList> commands_;
  bool workers_failed_ = false;
  // Counts the runs started, so that a grace timer of a run that was stopped never kills the
  // processes of a run started after it.
  quint64 run_number_ = 0;
  // The project's own graph, written for the workers of the current run.
  std::unique_ptr<QTemporaryDir> graph_dir_;
};

}  // namespace clab::ui
