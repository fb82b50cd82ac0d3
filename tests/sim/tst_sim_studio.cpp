// The studio's Simulate tab: the lesson "why one ps stops scaling" drives it, its curve and
// bottleneck come back, and editing the platform there is an undoable edit of the project.
#include "sim/SimulatePanel.h"
#include "teach/LessonPanel.h"
#include "teach/Lessons.h"
#include "window/MainWindow.h"

#include <QDockWidget>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QUndoStack>
#include <QtTest>

using namespace clab::ui;

class SimStudioTest : public QObject {
  Q_OBJECT

 private slots:
  void lessonShowsOnePsSaturating() {
    MainWindow window(qEnvironmentVariable("CLAB_BIN_DIR") + "/clab");
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.lessonsDock()->show();
    LessonPanel* lessons = window.lessons();
    int lesson = -1;
    const QList<Lesson> all = Lessons::all();
    for (int i = 0; i < all.size(); ++i)
      if (all[i].id == "ps-scaling") lesson = i;
    QVERIFY(lesson >= 0);
    lessons->setLesson(lesson);
    lessons->doAction();  // the digits MLP
    QCOMPARE(window.project().program, QString("digits-mlp"));
    lessons->next();
    QCOMPARE(lessons->currentPage().action, LessonPage::Action::kSimulate);
    SimulatePanel* panel = window.simulate();
    QSignalSpy simulated(panel, &SimulatePanel::simulated);
    lessons->doAction();  // 1 to 128 workers on one ps
    QCOMPARE(window.tabs()->currentWidget(), static_cast<QWidget*>(panel));
    QTRY_VERIFY_WITH_TIMEOUT(simulated.count() > 0 && !panel->isSimulating(), 240000);
    const auto& results = panel->results();
    QCOMPARE(results.size(), size_t{8});  // 1, 2, 4, ..., 128 workers
    QCOMPARE(results.back().config.workers, 128);
    // The curve flattens: doubling the workers at the end adds little, and the ps's NIC is
    // named.
    QVERIFY(results[1].total_steps_per_second > 1.8 * results[0].total_steps_per_second);
    QVERIFY(results[7].total_steps_per_second < 1.3 * results[6].total_steps_per_second);
    QVERIFY2(panel->bottleneckText().contains("ps 0's NIC"), qPrintable(panel->bottleneckText()));
    QVERIFY(!panel->summaryText().isEmpty());
  }

  void platformEditsAreUndoable() {
    MainWindow window(qEnvironmentVariable("CLAB_BIN_DIR") + "/clab");
    window.show();
    window.tabs()->setCurrentWidget(window.simulate());
    QVERIFY(window.project().platform.isEmpty());
    auto* bandwidth = window.simulate()->findChildren<QSlider*>().first();
    bandwidth->triggerAction(QAbstractSlider::SliderPageStepSub);
    QTRY_VERIFY(!window.project().platform.isEmpty());
    const QString edited = window.project().platform.value("link").toObject().value("bandwidth").toString();
    QVERIFY2(edited != "10Gbps", qPrintable(edited));
    window.undoStack()->undo();
    QVERIFY(window.project().platform.isEmpty());
    window.undoStack()->redo();
    QCOMPARE(window.project().platform.value("link").toObject().value("bandwidth").toString(), edited);
  }
};

QTEST_MAIN(SimStudioTest)
#include "tst_sim_studio.moc"
