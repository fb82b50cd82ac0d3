#include "window/LessonActions.h"

#include "teach/TeachingPanel.h"
#include "window/GraphEditor.h"
#include "window/MainWindow.h"

#include <QTabWidget>

namespace clab::ui {

bool PerformLessonAction(MainWindow& window, const LessonPage& page, QString* error) {
  using Action = LessonPage::Action;
  const auto fail = [error](const QString& why) {
    if (error) *error = why;
    return false;
  };
  switch (page.action) {
    case Action::kNone: return true;
    case Action::kOpenExample:
      if (window.isRunning()) window.stopRun();
      return window.openExample(page.argument) ? true : fail(QObject::tr("The example was not opened."));
    case Action::kWalkThrough: {
      window.tabs()->setCurrentWidget(window.graphEditor());
      window.graphEditor()->setTeaching(true);
      window.graphEditor()->teaching()->prepare();
      return true;
    }
    case Action::kRun:
      if (window.isRunning()) return true;
      return window.runProject(error);
    case Action::kStop: window.stopRun(); return true;
    case Action::kKillTask:
      if (!window.isRunning()) return fail(QObject::tr("Start the run first."));
      return window.killTask(page.argument) ? true : fail(QObject::tr("%1 is not running.").arg(page.argument));
    case Action::kRestartTask:
      if (!window.isRunning()) return fail(QObject::tr("Start the run first."));
      return window.restartTask(page.argument) ? true : fail(QObject::tr("%1 cannot be restarted.").arg(page.argument));
    case Action::kSetSync: {
      if (window.project().program == "seed")
        return fail(QObject::tr("The seed program has no updates to synchronise: open a training example."));
      if (window.isRunning()) window.stopRun();
      RunSettings settings = window.project().run;
      settings.sync = page.argument == "on";
      window.editRunSettings(settings);
      return true;
    }
  }
  return fail(QObject::tr("Unknown lesson action."));
}

}  // namespace clab::ui
