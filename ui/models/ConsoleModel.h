// The lines one console page shows, after its filters (level, source, search), newest last,
// at most kMaxLines. Lines are kept as they arrive (the newest kMaxLines, for re-filtering)
// and shown in batches: one insertion per flush(), which a timer calls a moment after lines
// arrive while the page is live, so a flood of lines costs one update per tick. While paused
// (the user scrolled up) lines wait and the rows stay as they are.
//
// A step counter's lines (StepCounterHook's "global_step/sec" every N steps) are collapsed
// when the filter says so: each task's latest one is shown once, at the bottom, with how many
// there were (RepeatsRole), so they do not bury the other lines.
#pragma once

#include "monitor/RunMonitor.h"

#include <QAbstractListModel>
#include <QHash>
#include <QTimer>

namespace clab::ui {

class ConsoleModel : public QAbstractListModel {
  Q_OBJECT

 public:
  static constexpr int kMaxLines = 20000;
  enum Role {
    LevelRole = Qt::UserRole + 1,  // 20 info, 30 warning, 40 error
    TaskRole,                      // the task that said it ("" for the studio's own notes)
    SourceRole,                    // "log", a hook's name, "stdout", "error"
    RepeatsRole,                   // how many lines a collapsed line stands for (1 otherwise)
  };
  struct Filter {
    int min_level = 0;
    QString source;  // empty: every source
    QString search;  // in the text, task or source, any case
    bool collapse = true;
  };

  // `show_task`: whether each line names its task (the page of all tasks) or not (one task's).
  explicit ConsoleModel(bool show_task, QObject* parent = nullptr);

  void append(const QList<ConsoleLine>& lines);
  // Shows again, from the kept lines, what `filter` lets through.
  void setFilter(const Filter& filter);
  const Filter& filter() const { return filter_; }
  // Paused: new lines wait, the rows stay. Unpausing shows what waits.
  void setPaused(bool paused);
  // Whether a timer shows waiting lines by itself (the page is on screen); flush() and text()
  // show them regardless.
  void setAutoFlush(bool on);
  // Shows the lines that wait, in one insertion (nothing while paused).
  void flush();
  // Lines kept but not shown yet.
  qsizetype waiting() const;
  void clear();
  // The rows shown, one per line (after showing what waits, unless paused).
  QString text();
  // Lines that a step counter writes over and over.
  static bool collapsible(const ConsoleLine& line);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

 signals:
  // Lines arrived or were shown: waiting() changed.
  void waitingChanged();

 private:
  struct Row {
    ConsoleLine line;
    int repeats = 1;
    qint64 serial = 0;  // increasing down the rows: finds a collapsed line's row
    QString text;       // as shown, formatted once
  };
  bool accepts(const ConsoleLine& line) const;
  QString format(const Row& row) const;
  int rowOfSerial(qint64 serial) const;
  void show(const QList<ConsoleLine>& lines, bool anew);

  const bool show_task_;
  Filter filter_;
  bool paused_ = false;
  bool auto_flush_ = false;
  QList<ConsoleLine> kept_;     // the newest lines, for re-filtering
  QList<ConsoleLine> pending_;  // kept but not shown yet
  bool redraw_ = false;         // more arrived than a page keeps: show anew from kept_
  QList<Row> rows_;
  qint64 next_serial_ = 0;
  QHash<QString, qint64> collapsed_;  // "task|source" -> the serial of its shown line
  QHash<QString, int> repeats_;       // "task|source" -> how many lines it stands for
  QTimer tick_;
};

}  // namespace clab::ui
