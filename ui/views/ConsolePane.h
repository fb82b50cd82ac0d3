// One page of the console: lines with a level filter and a search box over them, newest at
// the bottom, keeping the newest 20,000. Lines that arrive while the page is hidden are only
// kept, and drawn when it is shown (or its text is asked for), so pages nobody looks at cost
// next to nothing however fast tasks talk.
#pragma once

#include "monitor/RunMonitor.h"

#include <QWidget>

class QComboBox;
class QLineEdit;
class QPlainTextEdit;

namespace clab::ui {

class ConsolePane : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kMaxLines = 20000;

  // `show_task`: whether each line names its task (the page of all tasks) or not (one task's).
  explicit ConsolePane(bool show_task, QWidget* parent = nullptr);

  void append(const QList<ConsoleLine>& lines);
  void clear();
  // What the page shows, after the filter.
  QString text();
  // As if chosen and typed, for tests: the lowest level shown (0, 30, 40) and the search.
  void setFilter(int min_level, const QString& search);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void flush();
  void refilter();
  bool accepts(const ConsoleLine& line) const;
  QString format(const ConsoleLine& line) const;

  const bool show_task_;
  QComboBox* level_ = nullptr;
  QLineEdit* search_ = nullptr;
  QPlainTextEdit* text_ = nullptr;
  QList<ConsoleLine> kept_;     // the newest lines, for re-filtering
  QList<ConsoleLine> pending_;  // kept but not drawn yet (the page was hidden)
  bool redraw_ = false;         // more arrived while hidden than the page keeps: draw anew
};

}  // namespace clab::ui
