// One page of the console: lines with filters (level, source, search) over them, newest at
// the bottom, keeping the newest 20,000. Lines that arrive while the page is hidden are only
// kept, and drawn when it is shown (or its text is asked for), so pages nobody looks at cost
// next to nothing however fast tasks talk.
//
// The page follows the tail until the user scrolls up (or unticks Follow): then new lines are
// kept but not drawn, so the view does not move, and Follow says how many wait; ticking it
// draws them and returns to the tail. A step counter's lines (StepCounterHook's
// "global_step/sec" every N steps) are collapsed: each task's latest one is shown once, at
// the bottom, with how many there were, so they do not bury the other lines.
#pragma once

#include "monitor/RunMonitor.h"

#include <QHash>
#include <QSet>
#include <QTextCursor>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QToolButton;

namespace clab::ui {

class ConsolePane : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kMaxLines = 20000;

  // `show_task`: whether each line names its task (the page of all tasks) or not (one task's).
  explicit ConsolePane(bool show_task, QWidget* parent = nullptr);

  void append(const QList<ConsoleLine>& lines);
  void clear();
  // What the page shows, after the filters (while paused: what it showed when it paused).
  QString text();
  // As if chosen and typed, for tests: the lowest level shown (0, 30, 40) and the search.
  void setFilter(int min_level, const QString& search);
  bool following() const { return following_; }
  // Lines that a step counter writes over and over.
  static bool collapsible(const ConsoleLine& line);

 protected:
  void showEvent(QShowEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  struct Shown {
    QString key;  // "task|source" of a collapsed line, else empty
    QString text;
  };
  void flush();
  void refilter();
  // Draws `lines` after what is shown, a collapsed line replacing its earlier one.
  void draw(const QList<ConsoleLine>& lines);
  void removeShownBlock(const QString& key);
  bool accepts(const ConsoleLine& line) const;
  QString format(const ConsoleLine& line) const;
  void setFollowing(bool following);
  void checkScrolledAway();
  void updateFollowText();

  const bool show_task_;
  QComboBox* level_ = nullptr;
  QComboBox* source_ = nullptr;
  QLineEdit* search_ = nullptr;
  QCheckBox* collapse_ = nullptr;
  QToolButton* follow_ = nullptr;
  QPlainTextEdit* text_ = nullptr;
  QList<ConsoleLine> kept_;     // the newest lines, for re-filtering
  QList<ConsoleLine> pending_;  // kept but not drawn yet (the page was hidden or paused)
  bool redraw_ = false;         // more arrived than the page keeps: draw anew
  bool following_ = true;
  QSet<QString> sources_;
  // A collapsed line in the document: where its block starts and what it says (a block
  // trimmed off the top no longer says it), and how many lines it stands for.
  struct Collapsed {
    QTextCursor at;
    QString text;
  };
  QHash<QString, Collapsed> collapsed_;
  QHash<QString, int> repeats_;
};

}  // namespace clab::ui
