// The run's console: every task's log and hook lines, newest at the bottom, prefixed with
// time, task and source. Lines arrive in batches (RunMonitor) and are appended in one edit;
// the view keeps the newest 20,000 lines. A level filter and a search box narrow it.
#pragma once

#include "monitor/RunMonitor.h"

#include <QWidget>

class QComboBox;
class QLineEdit;
class QPlainTextEdit;

namespace clab::ui {

class ConsoleView : public QWidget {
  Q_OBJECT

 public:
  explicit ConsoleView(QWidget* parent = nullptr);

  void append(const QList<ConsoleLine>& lines);
  // Raw output of a task's process (what it printed), shown as it came.
  void appendRaw(const QString& task, const QStringList& lines);
  void clear();
  QString text() const;

 private:
  void refilter();
  bool accepts(const ConsoleLine& line) const;
  static QString format(const ConsoleLine& line);

  QComboBox* level_ = nullptr;
  QLineEdit* search_ = nullptr;
  QPlainTextEdit* text_ = nullptr;
  QList<ConsoleLine> kept_;  // for re-filtering
};

}  // namespace clab::ui
