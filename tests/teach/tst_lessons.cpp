// Every lesson walked through as a class does it: the teacher clicks the lesson panel's own
// buttons (lesson chooser, the page's action, Next) in the real window, and talks between
// clicks while the run goes on. The test waits for states (never for a speed): the pauses
// only let time pass. In the ps-failure lesson the ps is killed at the lesson's step, after
// the chief wrote a checkpoint, and the restore from model.ckpt-N is shown on the chief's
// card and in the dashboard once the ps is restarted.
#include "StudioModels.h"
#include "cluster/ClusterScene.h"
#include "cluster/TaskItem.h"
#include "monitor/RunMonitor.h"
#include "project/Project.h"
#include "run/LocalCluster.h"
#include "run/RunController.h"
#include "sim/SimulatePanel.h"
#include "teach/LessonPanel.h"
#include "teach/Lessons.h"
#include "teach/TeachingPanel.h"
#include "views/DashboardView.h"
#include "window/GraphEditor.h"
#include "window/MainWindow.h"

#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QTabWidget>
#include <QtTest>

using namespace clab::ui;

namespace {

// How long a teacher talks between two clicks: the run goes on meanwhile.
constexpr int kTalkMs = 2500;
constexpr int kLong = 60000;  // generous: a loaded machine is slow, never wrong

const QString kPs = "/job:ps/replica:0/task:0";
const QString kChief = "/job:worker/replica:0/task:0";
const QString kWorker1 = "/job:worker/replica:0/task:1";

}  // namespace

class LessonsTest : public QObject {
  Q_OBJECT

  MainWindow* window_ = nullptr;
  LessonPanel* panel_ = nullptr;

  QPushButton* button(const char* name) const { return panel_->findChild<QPushButton*>(name); }
  QString outcome() const { return panel_->findChild<QLabel*>("lesson-outcome")->text(); }
  static void talk() { QTest::qWait(kTalkMs); }

  // Picks lesson `index` in the chooser with the keyboard, as a teacher would.
  bool choose(int index) {
    auto* chooser = panel_->findChild<QComboBox*>("lesson-chooser");
    chooser->setFocus();
    for (int guard = 0; guard < 10 && panel_->lessonIndex() != index; ++guard)
      QTest::keyClick(chooser, panel_->lessonIndex() < index ? Qt::Key_Down : Qt::Key_Up);
    return panel_->lessonIndex() == index && panel_->pageIndex() == 0;
  }
  // Clicks the page's button; true when the studio said it was done.
  bool act() {
    QPushButton* action = button("lesson-action");
    if (!action || !action->isVisible() || !action->isEnabled()) return false;
    QTest::mouseClick(action, Qt::LeftButton);
    if (outcome() != "Done.")
      qWarning("lesson %d page %d: %s", panel_->lessonIndex(), panel_->pageIndex(), qPrintable(outcome()));
    return outcome() == "Done.";
  }
  bool next() {
    const int page = panel_->pageIndex();
    QPushButton* next = button("lesson-next");
    if (!next->isEnabled()) return false;
    QTest::mouseClick(next, Qt::LeftButton);
    return panel_->pageIndex() == page + 1;
  }
  QString card(const QString& task) const { return window_->scene()->item(task)->statusText(); }
  TaskCondition condition(const QString& task) const { return window_->runControl()->conditionOf(task); }

 private slots:
  void init() {
    window_ = new MainWindow(qEnvironmentVariable("CLAB_BIN_DIR") + "/clab");
    window_->show();
    window_->lessonsDock()->show();
    panel_ = window_->lessons();
    QVERIFY(QTest::qWaitForWindowExposed(window_));
  }
  void cleanup() {
    if (window_->isRunning()) {
      window_->stopRun();
      QTRY_VERIFY_WITH_TIMEOUT(!window_->isRunning(), kLong);
    }
    delete window_;
    window_ = nullptr;
  }

  void seedLesson() {
    QVERIFY(choose(0));
    QVERIFY(act());  // open the seed example
    QCOMPARE(window_->project().program, QString("seed"));
    talk();
    QVERIFY(next());
    QVERIFY(act());  // walk through one step
    QCOMPARE(window_->tabs()->currentWidget(), static_cast<QWidget*>(window_->graphEditor()));
    QTRY_VERIFY_WITH_TIMEOUT(window_->graphEditor()->teaching()->isReady(), kLong);
    talk();
    QVERIFY(next());
    QVERIFY(act());  // run the seed: the tutorial's 200 steps, over on its own
    QTRY_VERIFY_WITH_TIMEOUT(!window_->isRunning(), kLong);
    QCOMPARE(condition(kChief), TaskCondition::kFinished);
    QVERIFY2(card(kChief).startsWith("finished at step"), qPrintable(card(kChief)));
    QVERIFY(!next());  // the last page
  }

  void chiefLesson() {
    QVERIFY(choose(1));
    QVERIFY(act());  // open the two-worker seed
    QCOMPARE(window_->project().tasksOf("worker").size(), 2);
    talk();
    QVERIFY(next());
    QVERIFY(act());  // start the run
    QTRY_VERIFY_WITH_TIMEOUT(condition(kChief) == TaskCondition::kTraining || !window_->isRunning(), kLong);
    QTRY_VERIFY_WITH_TIMEOUT(window_->monitor()->statuses().value(kWorker1).global_step >= 0, kLong);
    talk();
    QVERIFY(next());
    QVERIFY(act());  // stop the run
    QTRY_VERIFY_WITH_TIMEOUT(!window_->isRunning(), kLong);
    QVERIFY(condition(kPs) == TaskCondition::kStopped);
    QCOMPARE(card(kPs), QString("stopped"));
  }

  void psFailureLesson() {
    QVERIFY(choose(2));
    QVERIFY(act());  // open the digits MLP with the lesson's run settings
    const RunSettings settings = window_->project().run;
    QCOMPARE(window_->project().program, QString("digits-mlp"));
    QVERIFY(!settings.checkpoint_dir.isEmpty());
    QVERIFY(QDir(settings.checkpoint_dir).isEmpty());  // nothing of an earlier run to restore
    QCOMPARE(settings.save_checkpoint_steps, kLessonCheckpointSteps);
    QVERIFY(panel_->pageText().contains(QString::number(kLessonCheckpointSteps)));
    talk();
    QVERIFY(next());
    QSignalSpy saved(window_->monitor(), &RunMonitor::checkpointSaved);
    QVERIFY(act());  // start training
    QTRY_COMPARE_WITH_TIMEOUT(condition(kChief), TaskCondition::kTraining, kLong);
    // The teacher waits for a checkpoint past the first, as the page says, and talks on.
    auto checkpoint_after_start = [&saved] {
      for (const QList<QVariant>& args : saved)
        if (args[2].toLongLong() > 0) return true;
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(checkpoint_after_start(), kLong);
    talk();
    // The run is still going however long the teacher talked: it lasts until it is stopped.
    QVERIFY(window_->isRunning());
    QVERIFY(next());
    QVERIFY(act());  // kill the ps
    QTRY_COMPARE_WITH_TIMEOUT(condition(kPs), TaskCondition::kKilled, kLong);
    QCOMPARE(card(kPs), QString("killed (SIGKILL)"));
    // The workers lose it: their steps fail and they wait for it; none shows training.
    QTRY_VERIFY_WITH_TIMEOUT(condition(kChief) != TaskCondition::kTraining, kLong);
    QTRY_VERIFY_WITH_TIMEOUT(condition(kWorker1) != TaskCondition::kTraining, kLong);
    talk();
    QVERIFY(window_->isRunning());
    QVERIFY(next());
    QVERIFY(act());  // restart the ps
    // The promised restore happens, and the chief's card and the dashboard show it.
    const QRegularExpression restored(R"(restored from model\.ckpt-(\d+) at step (\d+))");
    QTRY_VERIFY_WITH_TIMEOUT(restored.match(card(kChief)).hasMatch(), kLong);
    const QRegularExpressionMatch match = restored.match(card(kChief));
    // The file is named for the global step the chief read before saving; another worker's
    // step may have come in before the save, so the restored step is that or later.
    const qint64 step = match.captured(1).toLongLong();
    QVERIFY(step > 0);
    QVERIFY(match.captured(2).toLongLong() >= step);
    QVERIFY(QFileInfo::exists(QDir(settings.checkpoint_dir).filePath(QString("model.ckpt-%1.index").arg(step))));
    QCOMPARE(window_->monitor()->statuses().value(kChief).restored_step, match.captured(2).toLongLong());
    QTRY_VERIFY_WITH_TIMEOUT(restored.match(test::StateOf(window_->dashboard(), kChief)).hasMatch(), kLong);
    QTRY_COMPARE_WITH_TIMEOUT(condition(kChief), TaskCondition::kTraining, kLong);
    talk();
    QVERIFY(next());
    QVERIFY(act());  // end the lesson: stop the run
    QTRY_VERIFY_WITH_TIMEOUT(!window_->isRunning(), kLong);
    for (const QString& task : {kPs, kChief, kWorker1}) QCOMPARE(condition(task), TaskCondition::kStopped);
    QVERIFY(!next());
  }

  void syncLesson() {
    QVERIFY(choose(3));
    QVERIFY(act());  // open the digits MLP
    QCOMPARE(window_->project().program, QString("digits-mlp"));
    QVERIFY(window_->project().run.checkpoint_dir.isEmpty());
    QVERIFY(!window_->project().run.sync);
    talk();
    QVERIFY(next());
    QVERIFY(act());  // watch the asynchronous run
    QTRY_VERIFY_WITH_TIMEOUT(window_->monitor()->globalStep() > 0, kLong);
    talk();
    QVERIFY(next());
    QVERIFY(act());  // stop and switch to synchronous replicas
    QVERIFY(window_->project().run.sync);
    // An eager teacher goes on at once, while the asynchronous run is still ending: the
    // synchronous run starts as soon as it has ended.
    QVERIFY(next());
    QVERIFY(act());  // run again
    QTRY_VERIFY_WITH_TIMEOUT(window_->isRunning() && window_->cluster()->commandFor(kChief).contains("--sync"), kLong);
    QTRY_VERIFY_WITH_TIMEOUT(window_->monitor()->globalStep() > 0, kLong);
    talk();
  }

  void psScalingLesson() {
    QVERIFY(choose(4));
    QVERIFY(act());  // open the digits MLP
    talk();
    for (const char* what : {"128,1,async", "128,4,async", "128,1,sync"}) {
      QVERIFY(next());
      QCOMPARE(panel_->currentPage().argument, QString(what));
      QVERIFY(act());
      QCOMPARE(window_->tabs()->currentWidget(), static_cast<QWidget*>(window_->simulate()));
      QTRY_VERIFY_WITH_TIMEOUT(!window_->simulate()->isSimulating() && !window_->simulate()->results().empty(), kLong);
      QVERIFY(!window_->simulate()->bottleneckText().isEmpty());
      talk();
    }
    QVERIFY(!next());
  }
};

QTEST_MAIN(LessonsTest)
#include "tst_lessons.moc"
