// What a run is doing, at a glance: the global step and steps per second in large type, a
// table with each task's state (so a task everyone waits for stands out, with the variables a
// waiting non-chief still needs), a live chart of steps per second (falling to 0 when no step
// arrives) and the run's scalars (loss, accuracy) with the earlier runs of the session overlaid.
#pragma once

#include "monitor/RunMonitor.h"
#include "run/TaskLiveState.h"

#include <QElapsedTimer>
#include <QWidget>

class QLabel;
class QLineSeries;
class QScatterSeries;
class QTableView;
class QValueAxis;

namespace clab::ui {

class AxisTitle;
class ScalarsView;
class TaskTableModel;

class DashboardView : public QWidget {
  Q_OBJECT

 public:
  explicit DashboardView(QWidget* parent = nullptr);

  void setTasks(const QStringList& tasks);
  // `state` decides the words and colour of the State column; `status` gives the figures.
  void updateTask(const QString& task, const TaskLiveState& state, const TaskStatus& status);
  void updateProgress(qint64 global_step, double steps_per_second);
  // A new run: the speed chart starts again; the scalar charts keep the earlier runs' curves.
  void startRun();
  // A mark on the speed chart at this moment: "fault" (killed or restarted from the studio),
  // "error" (a step failed) or "recovered" (a session is ready again).
  void mark(const QString& kind);
  // A scalar a task's hook reported ("loss", "accuracy", "held_out_accuracy"): a point of the
  // current run's curve in the scalar charts (shown once a run reports one).
  void addScalar(const QString& task, qint64 global_step, const QString& name, double value);
  // Forgets every run's curves (a new project); startRun() keeps the earlier runs'.
  void reset();
  ScalarsView* scalars() const { return scalars_; }
  // The table's rows: each task's condition, step and rate (TaskTableModel's roles).
  TaskTableModel* tasks() const { return tasks_; }

 private:
  void showFigures();  // the global step and rate above the table

  qint64 shown_step_ = -1;
  double shown_rate_ = 0;
  QLabel* step_ = nullptr;
  QLabel* rate_ = nullptr;
  TaskTableModel* tasks_ = nullptr;
  QTableView* table_ = nullptr;
  QLineSeries* series_ = nullptr;
  QScatterSeries* faults_ = nullptr;
  QScatterSeries* errors_ = nullptr;
  QScatterSeries* recoveries_ = nullptr;
  QValueAxis* x_axis_ = nullptr;
  QValueAxis* y_axis_ = nullptr;
  AxisTitle* y_title_ = nullptr;
  QLabel* legend_ = nullptr;  // the speed chart's marks, wrapped to the chart's width
  ScalarsView* scalars_ = nullptr;
  QElapsedTimer run_clock_;
  double max_rate_ = 10;
};

}  // namespace clab::ui
