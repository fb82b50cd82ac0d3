// What the studio shows for one task of a run: a condition (data, read by tests and by the
// colour of the light), the words for it and the light's colour, both derived from the
// condition and from what the task last said, never from display text.
#pragma once

#include "monitor/RunMonitor.h"
#include "run/ProcessEnd.h"

#include <QColor>
#include <QString>

namespace clab::ui {

enum class TaskCondition {
  kNotRunning,    // no run, or the task has not been reached yet
  kStarting,      // started, its server not answering yet
  kWaiting,       // waiting for other tasks (the ps, the chief's initialisation)
  kInitializing,  // creating its session, restoring or initialising variables
  kServing,       // a server that answers (a ps, or a worker before its program runs)
  kReady,         // the model is ready, no step yet
  kTraining,      // steps arrive
  kStalled,       // training, but no step arrived for a while
  kRecovering,    // its last step failed; the session recreates itself
  kUnreachable,   // watched, but nothing answers at its address (or its stream was lost)
  kNotWatchable,  // something answers at its address, but not a ClusterLab task's event stream
  kFinished,      // training over (the task said so, or exited with 0)
  kStopped,       // ended by Stop (or by the end of the run)
  kKilled,        // killed from the studio
  kCrashed,       // died of a signal nobody here sent
  kFailed,        // exited with a non-zero status, or said it failed
};

struct TaskLiveState {
  TaskCondition condition = TaskCondition::kNotRunning;
  QString text;  // "training, step 1200", "crashed (signal 11)", "exited 3", "stopped", ...
  QColor light;
};

// `status`: what the task's event stream said; `end`: how its process ended (kRunning for
// tasks this studio did not start).
TaskLiveState DescribeTask(const TaskStatus& status, const ProcessEnd& end);
// Before a run, or for a task the run does not know.
TaskLiveState NotRunningState();
QColor ConditionColor(TaskCondition condition);
// A stable English name for logs and tests ("training", "crashed").
QString ConditionName(TaskCondition condition);

}  // namespace clab::ui
