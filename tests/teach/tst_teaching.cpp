// The teaching mode, offscreen: the seed program's step taken apart (prune, place,
// partition with its _Send/_Recv pairs and their bytes, register) and run for real on a
// private cluster ([[20]]); the panel played through one step, reporting the phases in
// order, with tokens on the canvas; Chinese and back; the timeline of the traced steps and
// its Chrome trace export; the digits MLP's step with packed transfers and fed zeros; bad
// fetches named in the error.
#include "graph/GraphDocument.h"
#include "graph/GraphScene.h"
#include "graph/NodeItem.h"
#include "graph/ProgramGraphs.h"
#include "project/Project.h"
#include "run/LocalCluster.h"
#include "teach/LessonPanel.h"
#include "teach/Lessons.h"
#include "teach/StepWalkthrough.h"
#include "teach/TeachingPanel.h"
#include "teach/TeachingStage.h"
#include "teach/TeachingText.h"
#include "teach/TimelineView.h"
#include "translations/StudioLanguage.h"
#include "window/GraphEditor.h"
#include "window/MainWindow.h"

#include <QDockWidget>
#include <QGraphicsPathItem>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPen>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace clab;
using namespace clab::ui;

namespace {

QMap<QString, QStringList> Cluster(int ps, int workers) {
  QMap<QString, QStringList> tasks;
  for (int i = 0; i < ps; ++i) tasks["ps"] << QString("127.0.0.1:%1").arg(2222 + i);
  for (int i = 0; i < workers; ++i) tasks["worker"] << QString("127.0.0.1:%1").arg(2300 + i);
  return tasks;
}

tensorflow::GraphDef ProgramGraph(const QString& program) {
  auto graph =
      ProgramGraphs::build(program, {{"ps", {"127.0.0.1:2222"}}, {"worker", {"127.0.0.1:2300", "127.0.0.1:2301"}}});
  return graph.ok() ? *graph : tensorflow::GraphDef();
}

const char* kPs = "/job:ps/replica:0/task:0";
const char* kWorker = "/job:worker/replica:0/task:0";

}  // namespace

class TeachingTest : public QObject {
  Q_OBJECT

 private slots:
  void seedStepTakenApartAndRun() {
    const tensorflow::GraphDef graph = ProgramGraph("seed");
    QCOMPARE(StepWalkthrough::guessFetches(graph), QStringList{"MatMul"});
    QCOMPARE(StepWalkthrough::guessInit(graph), QStringList{"init"});
    auto walk = StepWalkthrough::build(graph, Cluster(1, 2), {"MatMul"}, {}, {"init"});
    QVERIFY2(walk.ok(), walk.status().ToString().c_str());
    // Prune: the step needs x, w, their reads and MatMul; not the initialiser.
    QCOMPARE(walk->total_nodes, 10);
    QCOMPARE(walk->kept.size(), 5);
    QVERIFY(walk->pruned.contains("init"));
    QVERIFY(walk->pruned.contains("x/Assign"));
    // Place: the variables on the ps, the product on worker 0.
    QCOMPARE(StepWalkthrough::taskOf(walk->assigned.value("x")), QString(kPs));
    QCOMPARE(StepWalkthrough::taskOf(walk->assigned.value("w/read")), QString(kPs));
    QCOMPARE(StepWalkthrough::taskOf(walk->assigned.value("MatMul")), QString(kWorker));
    // Partition: two partitions; x and w cross from the ps to the worker, 16 bytes each
    // (int32 1x4 and 4x1): a ps that only sends does not pack.
    QCOMPARE(walk->partitions.size(), 2);
    QCOMPARE(walk->transfers.size(), 2);
    for (const WalkTransfer& t : walk->transfers) {
      QCOMPARE(t.from_task, QString(kPs));
      QCOMPARE(t.to_task, QString(kWorker));
      QCOMPARE(t.bytes, 16);
      QCOMPARE(t.consumers, QStringList{"MatMul"});
      QCOMPARE(t.edges.size(), 1);
      QCOMPARE(t.edges[0].second, QString("MatMul"));
      QVERIFY(!t.recv_node.isEmpty());
    }
    QCOMPARE(walk->transferBytes(), 32);
    // Run: really run, on a private cluster.
    QCOMPARE(walk->result, QStringList{"MatMul = [[20]]"});
    QCOMPARE(walk->step_stats.size(), 3);
    QStringList ran;
    for (const WalkExecution& e : walk->executionsOf()) ran << e.node;
    QVERIFY2(ran.contains("MatMul") && ran.contains("x/read"), qPrintable(ran.join(",")));
    // MatMul starts after both of its tensors arrived.
    const QList<WalkExecution> run = walk->executionsOf();
    int matmul = -1, last_recv = -1;
    for (int i = 0; i < run.size(); ++i) {
      if (run[i].node == "MatMul") matmul = i;
      if (run[i].op == "_Recv") last_recv = i;
    }
    QVERIFY(last_recv >= 0);
    QVERIFY(matmul > last_recv);
    QCOMPARE(StepWalkthrough::taskOf(run[matmul].device), QString(kWorker));
  }

  void panelPlaysOneStepThroughEveryPhase() {
    GraphEditor editor;
    editor.resize(1500, 800);
    editor.setProject(Project::seed());
    editor.setTeaching(true);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    TeachingPanel* panel = editor.teaching();
    QVERIFY(panel->isVisible());
    QCOMPARE(panel->findChild<QLineEdit*>("teach-fetches")->text(), QString("MatMul"));
    QSignalSpy ready(panel, &TeachingPanel::ready);
    panel->prepare();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 20000);
    QCOMPARE(panel->phase(), TeachingPhase::kPrune);
    // The pruned initialiser is greyed out.
    QVERIFY(editor.scene()->item("init")->opacity() < 0.5);
    QCOMPARE(editor.scene()->item("MatMul")->opacity(), 1.0);
    panel->step();
    QCOMPARE(panel->phase(), TeachingPhase::kPlace);
    QCOMPARE(editor.scene()->colorBy(), GraphScene::ColorBy::kAssignedDevice);
    panel->step();
    QCOMPARE(panel->phase(), TeachingPhase::kPartition);
    QCOMPARE(panel->stage()->transferEdgesShown(), 2);
    QVERIFY(panel->explanationHtml().contains("_Send"));
    panel->step();
    QCOMPARE(panel->phase(), TeachingPhase::kRegister);
    QVERIFY(panel->explanationHtml().contains("RegisterGraph"));
    panel->step();
    QCOMPARE(panel->phase(), TeachingPhase::kRun);
    // Node by node: a _Recv sends an orange token along its transfer edge.
    const int count = panel->executionCount();
    QVERIFY(count >= 6);
    bool token_seen = false, matmul_lit = false;
    for (int i = 0; i < count; ++i) {
      panel->step();
      QCOMPARE(panel->executionIndex(), i);
      token_seen = token_seen || panel->stage()->tokensInFlight() > 0;
      matmul_lit = matmul_lit || panel->stage()->litNode() == "MatMul";
    }
    QVERIFY(token_seen);
    QVERIFY(matmul_lit);
    panel->step();
    QCOMPARE(panel->phase(), TeachingPhase::kDone);
    QVERIFY(panel->explanationHtml().contains("[[20]]"));
    const QList<TeachingPhase> expected{TeachingPhase::kPrune,    TeachingPhase::kPlace, TeachingPhase::kPartition,
                                        TeachingPhase::kRegister, TeachingPhase::kRun,   TeachingPhase::kDone};
    QCOMPARE(panel->phasesSeen(), expected);
    // Back goes to the last node of the run; Play from the end starts again and runs on.
    panel->back();
    QCOMPARE(panel->phase(), TeachingPhase::kRun);
    QCOMPARE(panel->executionIndex(), count - 1);
    panel->setSpeed(4);
    panel->play();
    QVERIFY(panel->isPlaying());
    QTRY_COMPARE_WITH_TIMEOUT(panel->phase(), TeachingPhase::kDone, 15000);
    QTRY_VERIFY(!panel->isPlaying());
    // Leaving the teaching mode restores the canvas.
    editor.setTeaching(false);
    QCOMPARE(editor.scene()->item("init")->opacity(), 1.0);
    QCOMPARE(panel->stage()->transferEdgesShown(), 0);
  }

  void placementPreviewDrawsSendRecvPairs() {
    GraphEditor editor;
    editor.setProject(Project::seed());
    QVERIFY(editor.plannedTransfers() == nullptr);
    QString error;
    QVERIFY2(editor.previewPlacement(&error), qPrintable(error));
    const StepWalkthrough* plan = editor.plannedTransfers();
    QVERIFY(plan != nullptr);
    QCOMPARE(plan->transfers.size(), 2);
    QCOMPARE(plan->transferBytes(), 32);
    QVERIFY2(editor.statusText().contains("2 tensor(s) across tasks, 32 B"), qPrintable(editor.statusText()));
    int dashed = 0;
    for (QGraphicsItem* item : editor.scene()->items())
      if (auto* path = dynamic_cast<QGraphicsPathItem*>(item); path && path->pen().style() == Qt::DashLine) ++dashed;
    QCOMPARE(dashed, 2);
    // Nothing is greyed out: a preview shows the whole graph.
    QCOMPARE(editor.scene()->item("init")->opacity(), 1.0);
    // The teaching mode takes over the canvas; leaving it, a new placement draws them again.
    editor.setTeaching(true);
    QVERIFY(editor.plannedTransfers() == nullptr);
    editor.setTeaching(false);
    QVERIFY(editor.previewPlacement(&error));
    QVERIFY(editor.plannedTransfers() != nullptr);
  }

  void switchesToChineseAndBack() {
    GraphEditor editor;
    editor.setProject(Project::seed());
    editor.setTeaching(true);
    TeachingPanel* panel = editor.teaching();
    auto* prepare = panel->findChild<QPushButton*>("teach-prepare");
    QCOMPARE(prepare->text(), QString("Walk through one step"));
    QVERIFY(StudioLanguage::set("zh_CN"));
    QCOMPARE(StudioLanguage::current(), QString("zh_CN"));
    QTRY_COMPARE(prepare->text(), QString::fromUtf8("演示一个步骤"));
    QCOMPARE(TeachingText::phaseName(TeachingPhase::kPartition), QString::fromUtf8("3. 分割"));
    QCOMPARE(Lessons::all().first().title, QString::fromUtf8("种子程序"));
    QSignalSpy ready(panel, &TeachingPanel::ready);
    panel->prepare();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 20000);
    panel->step();
    panel->step();
    QVERIFY2(panel->explanationHtml().contains(QString::fromUtf8("每一步有 2 个张量跨越任务")),
             qPrintable(panel->explanationHtml()));
    QVERIFY(StudioLanguage::set("en"));
    QTRY_COMPARE(prepare->text(), QString("Walk through one step"));
    QCOMPARE(TeachingText::phaseName(TeachingPhase::kPartition), QString("3. Partition"));
    QCOMPARE(Lessons::all().first().title, QString("The seed program"));
    QVERIFY(!StudioLanguage::set("xx"));  // no such translation: nothing changes
    QCOMPARE(StudioLanguage::current(), QString("en"));
  }

  void timelineAndChromeTraceExport() {
    auto walk = StepWalkthrough::build(ProgramGraph("seed"), Cluster(1, 1), {"MatMul"}, {}, {"init"}, 2);
    QVERIFY2(walk.ok(), walk.status().ToString().c_str());
    TimelineView view(walk->step_stats);
    QCOMPARE(view.lanes().size(), 2);  // the ps's CPU and the worker's
    QVERIFY(view.computeBars() >= 2 * 3);
    QVERIFY(view.transferBars() >= 2 * 2);
    const double scale = view.scale();
    view.zoom(2);
    QCOMPARE(view.scale(), scale * 2);
    QTemporaryDir dir;
    const QString path = dir.filePath("trace.json");
    QString error;
    QVERIFY2(view.exportChromeTrace(path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonArray events = QJsonDocument::fromJson(file.readAll()).object().value("traceEvents").toArray();
    int matmuls = 0;
    for (const QJsonValue& event : events)
      if (event.toObject().value("args").toObject().value("name").toString() == "MatMul") ++matmuls;
    QCOMPARE(matmuls, 2);  // one per traced step
    // A path that cannot be written is refused with the path named, and nothing is left.
    QVERIFY(!view.exportChromeTrace(dir.filePath("missing/trace.json"), &error));
    QVERIFY2(error.contains("missing/trace.json"), qPrintable(error));
  }

  void digitsStepPacksTransfersAndFeedsZeros() {
    const tensorflow::GraphDef graph = ProgramGraph("digits-mlp");
    const QStringList fetches = StepWalkthrough::guessFetches(graph);
    QVERIFY2(!fetches.isEmpty(), "no fetch guessed");
    auto walk = StepWalkthrough::build(graph, Cluster(1, 1), fetches, {}, StepWalkthrough::guessInit(graph), 1);
    QVERIFY2(walk.ok(), walk.status().ToString().c_str());
    // The worker reads the weights from the ps and sends gradients back: both ways packed.
    bool packed_to_worker = false, packed_to_ps = false;
    for (const WalkTransfer& t : walk->transfers) {
      if (t.packed.size() < 2) continue;
      (t.to_task == kWorker ? packed_to_worker : packed_to_ps) = true;
      QVERIFY(t.bytes > 0);
    }
    QVERIFY(packed_to_worker);
    QVERIFY(packed_to_ps);
    QVERIFY2(!walk->fed.isEmpty(), "the placeholders were not fed");
    // The ps both serves the worker and waits for it: the register phase says how ClusterLab
    // runs such a partition.
    const QString registered = TeachingText::explainPhase(TeachingPhase::kRegister, *walk);
    QVERIFY2(registered.contains("registers such a partition as two graphs"), qPrintable(registered));
    QVERIFY(!TeachingText::explainPhase(TeachingPhase::kRegister,
                                        *StepWalkthrough::plan(ProgramGraph("seed"), Cluster(1, 1), {"MatMul"}, {}))
                 .contains("two graphs"));
  }

  void lessonsCoverWhatAClassAsksAbout() {
    const QList<Lesson> lessons = Lessons::all();
    QStringList ids;
    for (const Lesson& lesson : lessons) {
      ids << lesson.id;
      QVERIFY2(lesson.pages.size() >= 3, qPrintable(lesson.id));
      for (const LessonPage& page : lesson.pages) {
        QVERIFY(!page.title.isEmpty());
        QVERIFY(!page.text.isEmpty());
        QCOMPARE(page.action_label.isEmpty(), page.action == LessonPage::Action::kNone);
      }
    }
    QCOMPARE(ids, (QStringList{"seed", "chief", "ps-failure", "sync", "ps-scaling"}));
    QVERIFY(lessons[0].pages[2].text.contains("StopAtStepHook"));
  }

  void lessonButtonsDriveTheStudio() {
    MainWindow window(qEnvironmentVariable("CLAB_BIN_DIR") + "/clab");
    window.show();
    QVERIFY(!window.lessonsDock()->isVisible());
    window.lessonsDock()->show();
    LessonPanel* lessons = window.lessons();
    QSignalSpy performed(lessons, &LessonPanel::actionRequested);
    // The seed lesson: open the example, then walk through one step in the teaching mode.
    lessons->setLesson(0);
    lessons->doAction();
    QCOMPARE(window.project().program, QString("seed"));
    lessons->next();
    lessons->doAction();
    QCOMPARE(window.tabs()->currentWidget(), static_cast<QWidget*>(window.graphEditor()));
    QVERIFY(window.graphEditor()->teaching()->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(window.graphEditor()->teaching()->isReady(), 20000);
    // Killing the ps before any run is refused with the reason.
    lessons->setLesson(2);
    lessons->setPage(2);
    QCOMPARE(lessons->currentPage().action, LessonPage::Action::kKillTask);
    lessons->doAction();
    QCOMPARE(lessons->outcome(), QString("Start the run first."));
    QVERIFY(!window.isRunning());
    // Chief and non-chief: open the two-worker seed, run it, lose and restart the ps, stop.
    lessons->setLesson(1);
    lessons->doAction();
    QCOMPARE(window.project().program, QString("seed"));
    QCOMPARE(window.project().tasksOf("worker").size(), 2);
    lessons->next();
    lessons->doAction();
    QCOMPARE(lessons->outcome(), QString("Done."));
    QVERIFY(window.isRunning());
    const QString ps = "/job:ps/replica:0/task:0";
    QTRY_VERIFY_WITH_TIMEOUT(window.cluster()->taskRunning(ps), 20000);
    lessons->setLesson(2);
    lessons->setPage(2);
    lessons->doAction();  // kill the ps
    QTRY_VERIFY_WITH_TIMEOUT(!window.cluster()->taskRunning(ps), 10000);
    lessons->next();
    lessons->doAction();  // restart it
    QTRY_VERIFY_WITH_TIMEOUT(window.cluster()->taskRunning(ps), 20000);
    lessons->setLesson(1);
    lessons->setPage(2);
    lessons->doAction();  // stop the run
    QTRY_VERIFY_WITH_TIMEOUT(!window.isRunning(), 20000);
    // Synchronous replicas: on a training example, the run setting follows the lesson.
    lessons->setLesson(3);
    lessons->doAction();
    QCOMPARE(window.project().program, QString("digits-mlp"));
    QVERIFY(!window.project().run.sync);
    lessons->setPage(2);
    lessons->doAction();
    QVERIFY(window.project().run.sync);
    QCOMPARE(performed.count(), 10);
  }

  // Register: each task's outline encloses its own nodes and no other node, on the seed and
  // on the digits MLP (whose layout mixes the ps's and the worker's nodes).
  void registerOutlinesEncloseOnlyTheirTasksNodes() {
    for (const QString& program : {QString("seed"), QString("digits-mlp")}) {
      GraphEditor editor;
      editor.resize(1500, 900);
      Project project = program == "seed" ? Project::seed() : Project::digitsMlp();
      editor.setProject(project);
      editor.setTeaching(true);
      editor.show();
      TeachingPanel* panel = editor.teaching();
      QSignalSpy ready(panel, &TeachingPanel::ready);
      panel->prepare();
      QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 60000);
      while (panel->phase() != TeachingPhase::kRegister) panel->step();
      const StepWalkthrough* walk = panel->walkthrough();
      QVERIFY(walk);
      int outlines = 0;
      for (QGraphicsItem* item : editor.scene()->items()) {
        if (item->data(0).toString() != "partition") continue;
        ++outlines;
        const QString task = item->data(1).toString();
        const QPainterPath shape = static_cast<QGraphicsPathItem*>(item)->path();
        int own = 0;
        for (QGraphicsItem* other : editor.scene()->items()) {
          auto* node = dynamic_cast<NodeItem*>(other);
          if (!node) continue;
          const bool mine =
              walk->kept.contains(node->name()) && StepWalkthrough::taskOf(walk->assigned.value(node->name())) == task;
          const QRectF r = node->sceneBoundingRect();
          if (mine) {
            QVERIFY2(shape.contains(r), qPrintable(program + ": " + node->name() + " outside " + task));
            ++own;
          } else {
            QVERIFY2(!shape.intersects(r), qPrintable(program + ": " + node->name() + " inside " + task));
          }
        }
        QVERIFY(own > 0);
      }
      QCOMPARE(outlines, walk->partitions.size());
      editor.setTeaching(false);
    }
  }

  // The run's narration names the nodes on the canvas only: the _Send, _Recv and packing
  // nodes that partitioning adds are told by the tensors they carry.
  void narrationNamesOnlyDrawnNodes() {
    for (const QString& program : {QString("seed"), QString("digits-mlp")}) {
      const tensorflow::GraphDef graph = ProgramGraph(program);
      auto walk = StepWalkthrough::build(graph, Cluster(1, 1), StepWalkthrough::guessFetches(graph), {},
                                         StepWalkthrough::guessInit(graph), 1);
      QVERIFY2(walk.ok(), walk.status().ToString().c_str());
      QSet<QString> drawn;
      for (const auto& node : graph.node()) drawn.insert(QString::fromStdString(node.name()));
      const QRegularExpression bold("<b>(.*?)</b>");
      int transfers_told = 0;
      for (const WalkExecution& e : walk->executionsOf()) {
        const QString line = TeachingText::explainExecution(e, *walk);
        if (!drawn.contains(e.node)) {
          QVERIFY2(!line.contains(e.node.toHtmlEscaped()), qPrintable(program + ": " + line));
          ++transfers_told;
        }
        for (auto it = bold.globalMatch(line); it.hasNext();)
          for (QString name : it.next().captured(1).split(", ")) {
            name = name.section(':', 0, 0);
            QVERIFY2(drawn.contains(name), qPrintable(program + ": " + name + " in " + line));
          }
      }
      QVERIFY(transfers_told >= 2);
    }
  }

  // The timeline opens from the teaching panel as a window on the studio's screen, labels
  // its bars with their nodes' names and closes on Escape.
  void timelineOpensOnScreenLabelledAndClosesOnEscape() {
    GraphEditor editor;
    editor.resize(1400, 800);
    editor.setProject(Project::seed());
    editor.setTeaching(true);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    TeachingPanel* panel = editor.teaching();
    QSignalSpy ready(panel, &TeachingPanel::ready);
    panel->prepare();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 20000);
    auto* open = panel->findChild<QPushButton*>("teach-timeline");
    QVERIFY(open && open->isEnabled());
    QTest::mouseClick(open, Qt::LeftButton);
    QPointer<TimelineView> view = panel->findChild<TimelineView*>();
    QVERIFY(view);
    QVERIFY(QTest::qWaitForWindowExposed(view));
    QVERIFY(view->isWindow());
    const QRect screen = editor.screen()->availableGeometry();
    QVERIFY2(screen.contains(view->frameGeometry()),
             qPrintable(QString("%1,%2 %3x%4").arg(view->x()).arg(view->y()).arg(view->width()).arg(view->height())));
    // Bars carry their nodes' names where they fit (how many fit at first depends on how
    // long the nodes took); zoomed in, every bar carries its whole name.
    auto* canvas = view->findChild<QGraphicsView*>();
    auto elided = [canvas] {
      for (QGraphicsItem* item : canvas->scene()->items())
        if (auto* label = dynamic_cast<QGraphicsSimpleTextItem*>(item); label && label->data(0).isValid())
          if (label->text() != label->data(0).toString()) return true;
      return false;
    };
    for (int i = 0; i < 40 && (view->labelledBars() < view->computeBars() + view->transferBars() || elided()); ++i)
      view->zoom(2);
    QCOMPARE(view->labelledBars(), view->computeBars() + view->transferBars());
    int matmul_labels = 0;
    for (QGraphicsItem* item : canvas->scene()->items())
      if (auto* label = dynamic_cast<QGraphicsSimpleTextItem*>(item); label && label->data(0).toString() == "MatMul") {
        QCOMPARE(label->text(), QString("MatMul"));
        // The label lies on its bar.
        QVERIFY(label->parentItem()->sceneBoundingRect().contains(label->sceneBoundingRect().center()));
        ++matmul_labels;
      }
    QCOMPARE(matmul_labels, 3);  // one per traced step
    view->activateWindow();
    QTest::keyClick(view, Qt::Key_Escape);
    QTRY_VERIFY(view.isNull());
  }

  void badFetchIsNamed() {
    auto walk = StepWalkthrough::build(ProgramGraph("seed"), Cluster(1, 1), {"nope"}, {}, {});
    QVERIFY(!walk.ok());
    QVERIFY2(QString::fromStdString(walk.status().ToString()).contains("nope"), walk.status().ToString().c_str());
    QVERIFY(!StepWalkthrough::build(ProgramGraph("seed"), {}, {"MatMul"}, {}, {}).ok());
  }
};

QTEST_MAIN(TeachingTest)
#include "tst_teaching.moc"
