// The dashboard's table of tasks: one row per task of the run, columns Task, State, Global
// step, Steps/s and Detail. The state is data (the TaskCondition under ConditionRole); the
// words and colour shown come from it. Headers follow the studio's language (retranslate()).
#pragma once

#include "monitor/RunMonitor.h"
#include "run/TaskLiveState.h"

#include <QAbstractTableModel>

namespace clab::ui {

class TaskTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kTask, kState, kStep, kRate, kDetail, kColumns };
  enum Role {
    ConditionRole = Qt::UserRole + 1,  // the task's TaskCondition, as an int
    TaskRole,                          // the task's full name, "/job:ps/replica:0/task:0"
    GlobalStepRole,                    // its global step as a number (-1 before one)
    RateRole,                          // its steps per second as a number
  };

  explicit TaskTableModel(QObject* parent = nullptr);

  void setTasks(const QStringList& tasks);
  void updateTask(const QString& task, const TaskLiveState& state, const TaskStatus& status);
  // The row of `task`, -1 when the run has no such task.
  int rowOf(const QString& task) const;
  // The headers and the texts made with tr() again, in the studio's new language.
  void retranslate();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    QString task;
    TaskLiveState state;
    TaskStatus status;
  };
  QString detail(const Row& row) const;

  QList<Row> rows_;
};

}  // namespace clab::ui
