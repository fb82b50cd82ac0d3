// For the studio's GUI tests (they link clab_ui): what the studio's views show, read from
// their item models and widgets by name (a task's state on the dashboard, its words and its
// condition; the checkpoints and their tensors; the console's lines and tabs; the speed
// chart's marks), and a console page's filters, set as a user would.
#pragma once

#include "models/ConsoleModel.h"
#include "models/TaskTableModel.h"
#include "run/TaskLiveState.h"
#include "views/CheckpointsView.h"
#include "views/ConsolePane.h"
#include "views/ConsoleView.h"
#include "views/DashboardView.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QScatterSeries>
#include <QTabWidget>
#include <QTableView>

namespace clab::ui::test {

// The words of `task`'s State column ("" when the dashboard has no such task).
inline QString StateOf(const DashboardView* dashboard, const QString& task) {
  const TaskTableModel* model = dashboard->tasks();
  const int row = model->rowOf(task);
  return row < 0 ? QString() : model->index(row, TaskTableModel::kState).data().toString();
}

inline TaskCondition ConditionOf(const DashboardView* dashboard, const QString& task) {
  const TaskTableModel* model = dashboard->tasks();
  const int row = model->rowOf(task);
  return row < 0 ? TaskCondition::kNotRunning
                 : static_cast<TaskCondition>(
                       model->index(row, TaskTableModel::kState).data(TaskTableModel::ConditionRole).toInt());
}

inline QString GlobalStepText(const DashboardView* dashboard) {
  return dashboard->findChild<QLabel*>("global-step")->text();
}

// Marks of `kind` ("fault", "error", "recovered") on the speed chart.
inline int MarkCount(const DashboardView* dashboard, const QString& kind) {
  for (const QChartView* view : dashboard->findChildren<QChartView*>())
    for (const QAbstractSeries* series : view->chart()->series())
      if (series->objectName() == kind) return static_cast<const QScatterSeries*>(series)->count();
  return -1;
}

// The text a model shows at (row, column).
inline QString Cell(const QAbstractItemModel* model, int row, int column) {
  return model->index(row, column).data().toString();
}

// "Next run restores from model.ckpt-125", as the checkpoints view says it.
inline QString NextRestoreText(const CheckpointsView* view) { return view->findChild<QLabel*>("next-restore")->text(); }

// Selects checkpoint `row` (0: the newest) as a click would: its tensors are listed.
inline void SelectCheckpoint(const CheckpointsView* view, int row) {
  view->findChild<QTableView*>("checkpoints")->selectRow(row);
}

// The lines of the "All" tab, or of `task`'s ("" when it has none).
inline QString Lines(const ConsoleView* console, const QString& task = {}) {
  ConsolePane* pane = console->pane(task);
  return pane ? pane->model()->text() : QString();
}

// As if chosen and typed in a console page's bar: the lowest level shown (0, 30, 40) and
// the search.
inline void SetFilter(ConsolePane* pane, int min_level, const QString& search) {
  auto* level = pane->findChild<QComboBox*>("level");
  level->setCurrentIndex(level->findData(min_level));
  pane->findChild<QLineEdit*>("search")->setText(search);
}

// The console's tab names, "All" first.
inline QStringList TabNames(const ConsoleView* console) {
  const auto* tabs = console->findChild<QTabWidget*>("console-tabs");
  QStringList names;
  for (int i = 0; i < tabs->count(); ++i) names << tabs->tabText(i);
  return names;
}

}  // namespace clab::ui::test
