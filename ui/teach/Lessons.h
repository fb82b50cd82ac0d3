// The guided lessons, built on the example projects: pages of plain-words explanation, each
// with at most one thing the studio does for the class ("open the example", "walk through
// one step", "start the run", "kill the ps"...). Texts go through Qt's translation system.
#pragma once

#include <QCoreApplication>
#include <QList>
#include <QString>

namespace clab::ui {

// The ps-failure lesson's run: the digits MLP that trains until it is stopped, its chief
// writing a checkpoint every kLessonCheckpointSteps global steps into a scratch folder.
inline constexpr qint64 kLessonCheckpointSteps = 500;
inline constexpr qint64 kLessonLastStep = 1'000'000'000;

struct LessonPage {
  enum class Action { kNone, kOpenExample, kWalkThrough, kRun, kStop, kKillTask, kRestartTask, kSetSync, kSimulate };
  QString title;
  QString text;  // rich text
  Action action = Action::kNone;
  // kOpenExample: the example ("seed", "seed-two-workers", "digits-mlp", or
  // "digits-mlp-checkpointed": the digits MLP with the ps-failure lesson's run settings); kKillTask and
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
