// Watches every task of a cluster (one TaskWatcher each) and turns their events into what
// the studio shows: each task's state, training progress (global step, steps per second),
// console lines, the placement log, checkpoints, and each task's devices (GetTaskInfo). Events are drained on the GUI
// thread every 100 ms and delivered in batches, so a chatty task cannot stall the interface.
#pragma once

#include "clab/monitor.pb.h"
#include "monitor/DeviceInfo.h"
#include "monitor/TaskProbe.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QStringList>
#include <QTimer>

#include <memory>

namespace clab::ui {

class TaskWatcher;

struct TaskStatus {
  TaskState::Phase phase = TaskState::UNKNOWN;
  QString detail;
  QStringList uninitialized;
  bool connected = false;
  qint64 global_step = -1;
  qint64 local_step = 0;
  // The global step that the task's current session read in its first run (-1 before it
  // ran one): after a restore, the step it resumed from.
  qint64 first_step = -1;
  // The checkpoint its current session restored from (empty when it initialised afresh).
  QString restored_from;
  qint64 restored_step = -1;
  qint64 missed_events = 0;  // events the task sent faster than they could be watched, lost
  double steps_per_second = 0;
  // No step arrived for a while although the task was training: its rate is shown as 0.
  bool stalled = false;
  // Its last step failed (an error event) and the model has not been ready again since.
  bool step_failed = false;
  QString last_error;         // "UNAVAILABLE: ..." of that failure
  QList<DeviceInfo> devices;  // as the task last said (kept after it stops)
  // Why its stream is not open: what is at its address instead of a ClusterLab task. A task
  // of a local run that refuses connections is not reported so: its process tells more.
  WatchProblem problem = WatchProblem::kNone;
  QString problem_detail;  // English, from the probe or the refused call
};

struct ConsoleLine {
  QString task;
  double wall_time = 0;
  int level = 20;  // 20 info, 30 warning, 40 error
  QString source;  // "log", a hook's name, "error"
  QString text;
};

struct PlacementRow {
  QString task;  // whose master placed it (each worker's session places its own graph)
  QString node;
  QString op;
  QString device;
};

class RunMonitor : public QObject {
  Q_OBJECT

 public:
  // The most events one drain applies, over all tasks: what the GUI thread does between two
  // looks at its input is bounded however fast the tasks talk (the rest waits for the next
  // drain, 100 ms later or at once when behind).
  static constexpr size_t kMaxEventsPerDrain = 1000;

  explicit RunMonitor(QObject* parent = nullptr);
  ~RunMonitor() override;

  // Task name ("/job:ps/replica:0/task:0") -> "host:port". Replaces any earlier watch.
  // `started_here`: this studio started the tasks (here or on hosts), so a task that refuses
  // connections is starting, restarting or gone, and its process or launch says which.
  void watch(const QHash<QString, QString>& addresses, bool started_here = false);
  void clear();
  // Takes what the watchers still hold, then ends the watches; the statuses stay.
  void stopWatching();
  // For a run whose tasks have all ended: waits (briefly) until each task's stream has
  // closed, so that the last events a task sent before it exited are shown, then stops.
  void finishWatching();

  // The process of `task` has ended: it takes no more steps and talks to no peer.
  void taskEnded(const QString& task);

  const QHash<QString, TaskStatus>& statuses() const { return statuses_; }
  qint64 globalStep() const;           // the highest any task reported
  double totalStepsPerSecond() const;  // the workers' runs per second, summed

 signals:
  void statusChanged(const QString& task);
  // A task turned out not to be watchable (statuses()' problem says why), or became so again
  // (kNone).
  void watchProblem(const QString& task, clab::ui::WatchProblem problem);
  // The task answered GetTaskInfo: its devices are in statuses().
  void devicesChanged(const QString& task);
  void progress();
  void consoleLines(const QList<clab::ui::ConsoleLine>& lines);
  void placementsChanged(const QList<clab::ui::PlacementRow>& rows);
  void checkpointSaved(const QString& task, const QString& path, qint64 step);
  // Bytes per second between two tasks, both directions together, from the calls `task`
  // made to `peer` (reported every second while they talk).
  // Moments worth marking on the run's timeline: "error" (a step failed; the session will
  // recreate itself) and "recovered" (the model is ready again after an error).
  void timelineMark(const QString& task, const QString& kind);
  // A value a hook logged, by its name (LoggingTensorHook's "loss", StepCounterHook's
  // "global_step/sec"), at the hook's global step or else the task's latest.
  void scalarReported(const QString& task, qint64 global_step, const QString& name, double value);
  void trafficChanged(const QString& task, const QString& peer, double bytes_per_second);

 private:
  // Applies what the watchers hold, up to the budget; true when some was left for later.
  bool drain();
  // Rates of tasks whose steps stopped, and traffic of links that went quiet, fall to 0.
  void expireRates(bool* stepped);
  void apply(const QString& task, const TaskEvent& event, QList<ConsoleLine>* lines, bool* placed, bool* stepped);

  QHash<QString, std::shared_ptr<TaskWatcher>> watchers_;
  bool started_here_ = false;
  QHash<QString, TaskStatus> statuses_;
  QSet<QString> failed_tasks_;                       // tasks that reported an error and have not recovered yet
  QHash<QString, QPair<qint64, qint64>> rate_base_;  // task -> (local step, ms) at the last rate update
  QHash<QString, qint64> last_step_ms_;              // task -> when its last step event arrived
  QList<PlacementRow> placements_;
  struct TrafficSample {
    qint64 bytes = 0;
    double wall_time = 0;
    qint64 arrived_ms = 0;  // on this monitor's clock
    bool busy = false;      // the last rate sent for the link was above 0
  };
  QHash<QString, TrafficSample> traffic_;  // "task|peer" -> the last totals
  QTimer timer_;
  QElapsedTimer clock_;
};

}  // namespace clab::ui

Q_DECLARE_METATYPE(clab::ui::ConsoleLine)
Q_DECLARE_METATYPE(clab::ui::PlacementRow)
