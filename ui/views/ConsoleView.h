// The run's console: every task's log and hook lines, newest at the bottom, prefixed with
// time, task and source. A tab shows all tasks together ("All"), and each task gets a tab of
// its own ("ps:0", "worker:1") as soon as it says something; a task that crashed keeps its
// tab, with its last output, and the name of a tab that received an error turns red. Each tab
// keeps the newest 20,000 lines (a ConsoleModel) and has its own filters. Lines arrive in
// batches (RunMonitor), are shown once per timer tick, and hidden tabs only show them once shown.
#pragma once

#include "monitor/RunMonitor.h"

#include <QHash>
#include <QWidget>

class QTabWidget;

namespace clab::ui {

class ConsolePane;

class ConsoleView : public QWidget {
  Q_OBJECT

 public:
  explicit ConsoleView(QWidget* parent = nullptr);

  void append(const QList<ConsoleLine>& lines);
  // Raw output of a task's process (what it printed), shown as it came.
  void appendRaw(const QString& task, const QStringList& lines);
  // Empties every tab and removes the tasks' tabs.
  void clear();
  // The "All" tab, or `task`'s (nullptr when it has none); its model() holds its lines.
  ConsolePane* pane(const QString& task = {}) const;
  // "ps:0" for "/job:ps/replica:0/task:0".
  static QString shortName(const QString& task);

 private:
  ConsolePane* paneFor(const QString& task);

  QTabWidget* tabs_ = nullptr;
  ConsolePane* all_ = nullptr;
  QHash<QString, ConsolePane*> panes_;  // task -> its tab
};

}  // namespace clab::ui
