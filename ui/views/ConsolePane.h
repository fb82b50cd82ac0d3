// One page of the console: a ConsoleModel's lines in a list, with the filters over them
// (level, source, search, collapsing step counters), newest at the bottom. Lines that arrive
// while the page is hidden are only kept, and shown when it is shown, so pages nobody looks at
// cost next to nothing however fast tasks talk.
//
// The page follows the tail until the user scrolls up (or unticks Follow): then new lines
// wait in the model, so the view does not move, and Follow says how many wait; ticking it
// shows them and returns to the tail. Selected lines copy with Ctrl+C.
#pragma once

#include "monitor/RunMonitor.h"

#include <QSet>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QToolButton;
class QTreeView;

namespace clab::ui {

class ConsoleModel;

class ConsolePane : public QWidget {
  Q_OBJECT

 public:
  // `show_task`: whether each line names its task (the page of all tasks) or not (one task's).
  explicit ConsolePane(bool show_task, QWidget* parent = nullptr);

  void append(const QList<ConsoleLine>& lines);
  void clear();
  // The lines shown, with their level, task, source and repeats (ConsoleModel's roles).
  ConsoleModel* model() const { return model_; }
  bool following() const { return following_; }

 protected:
  void showEvent(QShowEvent* event) override;
  void hideEvent(QHideEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void applyFilter();
  void setFollowing(bool following);
  void checkScrolledAway();
  void updateFollowText();
  // Widens the list's column to the longest line shown (rows `first`..`last`, or all).
  void fitWidth(int first, int last);
  void copySelection();

  const bool show_task_;
  ConsoleModel* model_ = nullptr;
  QComboBox* level_ = nullptr;
  QComboBox* source_ = nullptr;
  QLineEdit* search_ = nullptr;
  QCheckBox* collapse_ = nullptr;
  QToolButton* follow_ = nullptr;
  QTreeView* lines_ = nullptr;
  bool following_ = true;
  int widest_ = 0;
  QSet<QString> sources_;
};

}  // namespace clab::ui
