// The guided lessons, built on the example projects: pages of plain-words explanation, each
// with at most one thing the studio does for the class ("open the example", "walk through
// one step", "start the run", "kill the ps"...). Texts go through Qt's translation system.
#pragma once

#include <QCoreApplication>
#include <QList>
#include <QString>

namespace clab::ui {

struct LessonPage {
  enum class Action { kNone, kOpenExample, kWalkThrough, kRun, kStop, kKillTask, kRestartTask, kSetSync, kSimulate };
  QString title;
  QString text;  // rich text
  Action action = Action::kNone;
  // kOpenExample: the example ("seed", "seed-two-workers", "digits-mlp"); kKillTask and
  // kRestartTask: the task ("/job:ps/replica:0/task:0"); kSetSync: "on" or "off"; kSimulate:
  // "WORKERS,PS,sync|async" for the Simulate tab.
  QString argument;
  QString action_label;  // the button's text
};

struct Lesson {
  QString id;
  QString title;
  QList<LessonPage> pages;
};

class Lessons {
  Q_DECLARE_TR_FUNCTIONS(clab::ui::Lessons)

 public:
  // "seed", "chief", "ps-failure", "sync", "ps-scaling", in teaching order.
  static QList<Lesson> all();
};

}  // namespace clab::ui
