// The run the studio shows: a local run (every task a process of LocalCluster) or tasks
// started elsewhere that it watches (attach). It watches their event streams (RunMonitor),
// remembers how each process ended, and derives each task's TaskLiveState from both; the
// window observes it and only draws. While a run is watched it ticks every second, so that
// rates fall to zero and charts show a gap when no step arrives.
#pragma once

#include "monitor/RunMonitor.h"
#include "project/Project.h"
#include "run/LocalCluster.h"
#include "run/ProcessEnd.h"
#include "run/TaskLiveState.h"

#include <QHash>
#include <QObject>
#include <QTimer>

namespace clab::ui {

class RunController : public QObject {
  Q_OBJECT

 public:
  explicit RunController(QString clab_program, QObject* parent = nullptr);

  // Starts every task of `project` on this machine; false with the reason.
  bool start(const Project& project, QString* error);
  // Stops the local run: its tasks end as "stopped", not as crashed or failed.
  void stop();
  // Watches tasks already running at `addresses` (task -> host:port) without starting them.
  void attach(const QHash<QString, QString>& addresses);
  void detach();
  bool killTask(const QString& task);
  bool restartTask(const QString& task);
  // Forgets the previous run's states, steps and ends (a new or opened project).
  void reset();

  bool running() const { return cluster_->running(); }
  bool attached() const { return attached_; }
  TaskLiveState state(const QString& task) const;
  TaskCondition conditionOf(const QString& task) const { return state(task).condition; }

  RunMonitor* monitor() const { return monitor_; }
  LocalCluster* cluster() const { return cluster_; }

 signals:
  void taskStateChanged(const QString& task);
  // Steps or rates changed, or a second passed while a run is watched.
  void progress();
  // A process of the local run ended (not emitted for attached tasks).
  void taskEnded(const QString& task, const clab::ui::ProcessEnd& end, const QString& last_lines);
  void runFinished(bool ok);

 private:
  void onTaskFinished(const QString& task, const ProcessEnd& end, const QString& last_lines);
  void updateTicking();

  LocalCluster* cluster_ = nullptr;
  RunMonitor* monitor_ = nullptr;
  QHash<QString, ProcessEnd> ends_;
  bool attached_ = false;
  // After reset(): the ends of the forgotten run's processes are not this project's.
  bool forgotten_ = false;
  QTimer tick_;
};

}  // namespace clab::ui
