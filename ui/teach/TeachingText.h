// What the teaching mode says at each phase of a distributed step and about each node as
// it runs, in plain words. Every sentence goes through Qt's translation system (context
// "clab::ui::TeachingText"), so switching the studio to Chinese changes them all.
#pragma once

#include "teach/StepWalkthrough.h"

#include <QCoreApplication>
#include <QString>

namespace clab::ui {

enum class TeachingPhase { kPrune, kPlace, kPartition, kRegister, kRun, kDone };

class TeachingText {
  Q_DECLARE_TR_FUNCTIONS(clab::ui::TeachingText)

 public:
  static QString phaseName(TeachingPhase phase);
  // Rich text explaining the phase with this walkthrough's own nodes, tasks and bytes.
  static QString explainPhase(TeachingPhase phase, const StepWalkthrough& walk);
  // One line about a node as it runs ("w/read (Identity) on /job:ps/task:0: ...").
  static QString explainExecution(const WalkExecution& execution, const StepWalkthrough& walk);
  // "16 B", "37.5 KB", "? B".
  static QString bytes(qint64 bytes);
  // "/job:ps/task:0" for "/job:ps/replica:0/task:0".
  static QString shortTask(const QString& task);
};

}  // namespace clab::ui
