#include "window/LessonActions.h"

#include "run/LocalCluster.h"
#include "sim/SimulatePanel.h"
#include "teach/LessonScratch.h"
#include "teach/TeachingPanel.h"
#include "window/GraphEditor.h"
#include "window/MainWindow.h"

#include <QTabWidget>
#include <QTimer>

namespace clab::ui {

bool PerformLessonAction(MainWindow& window, const LessonPage& page, QString* error) {
  using Action = LessonPage::Action;
  const auto fail = [error](const QString& why) {
    if (error) *error = why;
    return false;
  };
  switch (page.action) {
    case Action::kNone: return true;
    case Action::kOpenExample: {
      if (window.isRunning()) window.stopRun();
      const bool checkpointed = page.argument == "digits-mlp-checkpointed";
      if (!window.openExample(checkpointed ? QStringLiteral("digits-mlp") : page.argument))
        return fail(QObject::tr("The example was not opened."));
      if (!checkpointed) return true;
      // The ps-failure lesson: a run that lasts until the teacher stops it, with checkpoints
      // to restore from (a fresh folder, so nothing of an earlier run is restored).
      QString why;
      const QString dir = LessonScratch::fresh(&window, &why);
      if (dir.isEmpty()) return fail(why);
      Project project = window.project();
      project.run.last_step = kLessonLastStep;
      project.run.checkpoint_dir = dir;
      project.run.save_checkpoint_steps = kLessonCheckpointSteps;
      window.setProject(project);
      return true;
    }
    case Action::kWalkThrough: {
      window.tabs()->setCurrentWidget(window.graphEditor());
      window.graphEditor()->setTeaching(true);
      window.graphEditor()->teaching()->prepare();
      return true;
    }
    case Action::kRun:
      if (window.isRunning() && window.cluster()->stopping()) {
        // The last run (another example's, or the one just switched to synchronous) is
        // still ending: this one starts as soon as it has.
        QObject::connect(
            window.cluster(), &LocalCluster::runFinished, &window,
            [&window] {
              QTimer::singleShot(0, &window, [&window] {
                if (!window.isRunning()) window.runProject();
              });
            },
            Qt::SingleShotConnection);
        return true;
      }
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
    case Action::kSimulate: {
      const QStringList parts = page.argument.split(',');
      if (parts.size() != 3) return fail(QObject::tr("Unknown lesson action."));
      window.tabs()->setCurrentWidget(window.simulate());
      window.simulate()->setWhatIf(parts[0].toInt(), parts[1].toInt(), parts[2] == "sync");
      return true;
    }
  }
  return fail(QObject::tr("Unknown lesson action."));
}

}  // namespace clab::ui
