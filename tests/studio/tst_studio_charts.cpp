// The studio's charts, console, example menu and Task panel, driven in the main window as a
// user drives them (offscreen): training runs overlaid in the scalar charts with TensorBoard's
// smoothing, a log scale and runs that can be hidden and cleared; the console's pause/follow
// and its collapsed step-counter lines; File > Examples opening every example project; Ctrl+Z
// in a Task field undoing the project edit. With CLAB_SCREENSHOT_DIR set, the dashboard after
// two longer runs is saved there (studio-runs.png, the window, the console).
#include "ClabProcess.h"
#include "StudioModels.h"

#include "cluster/ClusterScene.h"
#include "cluster/TaskItem.h"
#include "monitor/RunMonitor.h"
#include "project/Project.h"
#include "run/LocalCluster.h"
#include "views/ConsolePane.h"
#include "views/ConsoleView.h"
#include "views/DashboardView.h"
#include "views/ScalarChart.h"
#include "views/ScalarSmoothing.h"
#include "views/ScalarsView.h"
#include "views/TaskPropertiesView.h"
#include "window/MainWindow.h"

#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QLogValueAxis>
#include <QMenuBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeView>
#include <QUndoStack>
#include <QValueAxis>
#include <QtTest>

#include <cmath>

using namespace clab::ui;
using namespace clab::ui::test;

namespace {

// The chart's series named `name` (a run's smoothed curve), and the raw one under it.
QLineSeries* Series(const ScalarChart* chart, const QString& name) {
  for (QAbstractSeries* series : chart->chart()->series())
    if (series->name() == name) return qobject_cast<QLineSeries*>(series);
  return nullptr;
}

QList<QLineSeries*> SmoothedCurves(const ScalarChart* chart) {
  QList<QLineSeries*> curves;
  for (QAbstractSeries* series : chart->chart()->series())
    if (series->type() == QAbstractSeries::SeriesTypeLine && !series->name().endsWith("(raw)"))
      curves << static_cast<QLineSeries*>(series);
  return curves;
}

// 1, 2, 2.5 or 5 times a power of ten.
bool Round(double step) {
  const double mantissa = step / std::pow(10.0, std::floor(std::log10(step)));
  for (double nice : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (std::abs(mantissa - nice) < 1e-6) return true;
  return false;
}

void RunToTheEnd(MainWindow& window) {
  QSignalSpy finished(window.cluster(), &LocalCluster::runFinished);
  QString error;
  QVERIFY2(window.runProject(&error), qPrintable(error));
  QVERIFY(finished.wait(120000));
  QCOMPARE(finished.first().first().toBool(), true);
}

}  // namespace

class StudioChartsTest : public QObject {
  Q_OBJECT

 private slots:
  void smoothingIsTensorBoards() {
    const QList<QPointF> raw = {{0, 0}, {1, 1}, {2, 1}};
    QCOMPARE(SmoothScalars(raw, 0), raw);
    const QList<QPointF> smoothed = SmoothScalars(raw, 0.5);
    // Debiased: 0/(1-0.5); (0.5*0 + 0.5*1)/(1-0.25); (0.5*0.5 + 0.5*1)/(1-0.125).
    QCOMPARE(smoothed[0].y(), 0.0);
    QVERIFY(std::abs(smoothed[1].y() - 0.5 / 0.75) < 1e-12);
    QVERIFY(std::abs(smoothed[2].y() - 0.75 / 0.875) < 1e-12);
    // A constant curve stays as it is; so do values that are not numbers.
    QCOMPARE(SmoothScalars({{0, 3}, {1, 3}}, 0.9), (QList<QPointF>{{0, 3}, {1, 3}}));
    QVERIFY(std::isnan(SmoothScalars({{0, 1}, {1, NAN}, {2, 2}}, 0.5)[1].y()));
  }

  void trainingRunsAreOverlaidAndSmoothed() {
    MainWindow window(ClabProcess::programPath("clab"));
    Project project = Project::digitsMlp();
    // Longer runs for the picture: more points on the curves.
    const QString screenshots = qEnvironmentVariable("CLAB_SCREENSHOT_DIR");
    project.run.last_step = screenshots.isEmpty() ? 400 : 3000;
    window.setProject(project);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.tabs()->setCurrentWidget(window.dashboard());
    ScalarsView* scalars = window.dashboard()->scalars();
    QVERIFY(!scalars->isVisible());  // nothing reported yet
    // Each run writes its own checkpoints (and so has the chief's StepCounterHook, as in
    // TensorFlow), starting afresh.
    QTemporaryDir checkpoints;
    for (const QString& run : {QString("run1"), QString("run2")}) {
      RunSettings settings = window.project().run;
      settings.checkpoint_dir = checkpoints.filePath(run);
      window.editRunSettings(settings);
      RunToTheEnd(window);
    }
    QVERIFY(scalars->isVisible());

    // One smoothed curve per run, each over its raw values drawn faint.
    auto* runs = scalars->findChild<QListWidget*>("runs");
    QCOMPARE(runs->count(), 2);
    ScalarChart* loss = scalars->lossChart();
    QCOMPARE(SmoothedCurves(loss).size(), 2);
    for (int row = 0; row < 2; ++row) {
      const QString name = runs->item(row)->text();
      QCOMPARE(name, QString("Run %1").arg(row + 1));
      QLineSeries* smoothed = Series(loss, name);
      QLineSeries* raw = Series(loss, name + " (raw)");
      QVERIFY(smoothed && raw);
      QVERIFY2(raw->count() >= 4, qPrintable(QString::number(raw->count())));  // two workers, every 100 steps
      QCOMPARE(smoothed->count(), raw->count());
      QVERIFY(raw->pen().color().alpha() < 128 && smoothed->pen().color().alpha() == 255);
      QVERIFY(raw->pen().widthF() < smoothed->pen().widthF());
    }
    QVERIFY(window.dashboard()->scalars()->lossPoints() >= 4);

    // The smoothing slider, moved with the keyboard: the curves are the debiased moving average.
    auto* slider = scalars->findChild<QSlider*>("smoothing");
    const QString run2 = runs->item(1)->text();
    QTest::keyClick(slider, Qt::Key_End);
    QCOMPARE(slider->value(), 99);
    QCOMPARE(Series(loss, run2)->points(), SmoothScalars(Series(loss, run2 + " (raw)")->points(), 0.99));
    QVERIFY(Series(loss, run2)->points() != Series(loss, run2 + " (raw)")->points());
    QTest::keyClick(slider, Qt::Key_Home);
    QCOMPARE(Series(loss, run2)->points(), Series(loss, run2 + " (raw)")->points());
    for (int i = 0; i < 6; ++i) QTest::keyClick(slider, Qt::Key_PageUp);
    QCOMPARE(slider->value(), 60);

    // Round ticks on the value axis.
    auto* y = qobject_cast<QValueAxis*>(Series(loss, run2)->attachedAxes().value(1));
    QVERIFY(y);
    QVERIFY2(Round((y->max() - y->min()) / (y->tickCount() - 1)),
             qPrintable(QString("%1..%2 in %3 ticks").arg(y->min()).arg(y->max()).arg(y->tickCount())));
    // The log scale: whole decades.
    auto* log_scale = scalars->findChild<QCheckBox*>("log-scale");
    QTest::mouseClick(log_scale, Qt::LeftButton, {}, QPoint(8, log_scale->height() / 2));
    QVERIFY(log_scale->isChecked());
    auto* log_y = qobject_cast<QLogValueAxis*>(Series(loss, run2)->attachedAxes().value(1));
    QVERIFY(log_y && log_y->isVisible());
    QCOMPARE(std::log10(log_y->min()), std::round(std::log10(log_y->min())));
    QCOMPARE(std::log10(log_y->max()), std::round(std::log10(log_y->max())));

    // Accuracy: the training minibatch's curve, and each worker's held-out accuracy at the end.
    ScalarChart* accuracy = scalars->accuracyChart();
    QVERIFY(accuracy->isVisible());
    QVERIFY(Series(accuracy, run2) && Series(accuracy, run2)->count() >= 4);
    QScatterSeries* held_out = nullptr;
    for (QAbstractSeries* series : accuracy->chart()->series())
      if (series->name() == "held-out, run 2") held_out = qobject_cast<QScatterSeries*>(series);
    QVERIFY(held_out);
    QCOMPARE(held_out->count(), 2);
    for (const QPointF& point : held_out->points())
      QVERIFY2(point.y() > 0.3 && point.y() <= 1.0 && point.x() > 0,
               qPrintable(QString("%1 at %2").arg(point.y()).arg(point.x())));

    // The console of those runs: the chief's step-counter line once (its rate every 100 steps).
    window.tabs()->setCurrentWidget(window.console());
    QCOMPARE(Lines(window.console()).count("global_step/sec"), 1);
    QVERIFY(Lines(window.console()).count("[LoggingTensorHook]") >= 2);

    if (!screenshots.isEmpty()) {
      window.tabs()->setCurrentWidget(window.dashboard());
      QTest::qWait(200);
      QVERIFY(window.grab().save(QDir(screenshots).filePath("studio-runs-window.png")));
      QVERIFY(window.dashboard()->grab().save(QDir(screenshots).filePath("studio-runs.png")));
      window.tabs()->setCurrentWidget(window.console());
      QTest::qWait(200);
      QVERIFY(window.console()->grab().save(QDir(screenshots).filePath("studio-console-collapsed.png")));
    }

    // Hiding run 1 (Space on its box), then clearing the earlier runs.
    runs->setFocus();
    runs->setCurrentRow(0);
    QTest::keyClick(runs, Qt::Key_Space);
    QCOMPARE(runs->item(0)->checkState(), Qt::Unchecked);
    QVERIFY(!Series(loss, runs->item(0)->text())->isVisible());
    QVERIFY(Series(loss, run2)->isVisible());
    auto* clear = scalars->findChild<QPushButton*>("clear-runs");
    QVERIFY(clear->isEnabled());
    QTest::mouseClick(clear, Qt::LeftButton);
    QCOMPARE(runs->count(), 1);
    QCOMPARE(runs->item(0)->text(), run2);
    QCOMPARE(SmoothedCurves(loss).size(), 1);

    // A new project starts with no runs.
    window.setProject(Project::seed());
    QVERIFY(!scalars->isVisible());
    QCOMPARE(runs->count(), 0);
    QVERIFY(SmoothedCurves(loss).isEmpty());
  }

  void consolePausesAndCollapsesStepCounters() {
    MainWindow window(ClabProcess::programPath("clab"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.tabs()->setCurrentWidget(window.console());
    ConsolePane* all = window.console()->pane();
    ConsoleModel* model = all->model();
    const QString w0 = "/job:worker/replica:0/task:0", w1 = "/job:worker/replica:0/task:1";
    // Thousands of lines: the step counters' rate every step, a log line every tenth. Batches
    // that come faster than the model's tick are shown in one insertion.
    QSignalSpy inserted(model, &QAbstractItemModel::rowsInserted);
    QList<ConsoleLine> lines;
    for (int i = 0; i < 3000; ++i) {
      lines.append({w0, 1.0, 20, "StepCounterHook", QString("global_step/sec: %1").arg(i)});
      lines.append({w1, 1.0, 20, "StepCounterHook", QString("global_step/sec: %1").arg(i)});
      if (i % 10 == 0) lines.append({w0, 1.0, 20, "log", QString("log line %1").arg(i)});
      if (lines.size() >= 500) window.console()->append(std::exchange(lines, {}));
    }
    window.console()->append(lines);
    QVERIFY(model->waiting() > 0);
    QTRY_COMPARE(model->waiting(), 0);  // shown by the model's timer
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(model->rowCount(), 302);
    QString text = model->text();
    QCOMPARE(text.count("global_step/sec"), 2);
    QCOMPARE(text.count("log line"), 300);
    // The collapsed lines are the latest, at the bottom, with how many they stand for.
    QVERIFY(text.endsWith(w1 + " [StepCounterHook] global_step/sec: 2999  [\u00d73000]"));
    QVERIFY(text.contains(w0 + " [StepCounterHook] global_step/sec: 2999  [\u00d73000]"));
    const QModelIndex last = model->index(model->rowCount() - 1, 0);
    QCOMPARE(last.data(ConsoleModel::RepeatsRole).toInt(), 3000);
    QCOMPARE(last.data(ConsoleModel::TaskRole).toString(), w1);
    QCOMPARE(last.data(ConsoleModel::SourceRole).toString(), QString("StepCounterHook"));

    auto* collapse = all->findChild<QCheckBox*>("collapse");
    QTest::mouseClick(collapse, Qt::LeftButton, {}, QPoint(8, collapse->height() / 2));
    QCOMPARE(model->text().count("global_step/sec"), 6000);
    QTest::mouseClick(collapse, Qt::LeftButton, {}, QPoint(8, collapse->height() / 2));
    QCOMPARE(model->text().count("global_step/sec"), 2);

    // The source filter, chosen with the keyboard: the log's lines alone.
    auto* source = all->findChild<QComboBox*>("source");
    QCOMPARE(source->itemText(2), QString("log"));
    source->setFocus();
    QTest::keyClick(source, Qt::Key_Down);
    QTest::keyClick(source, Qt::Key_Down);
    QCOMPARE(source->currentText(), QString("log"));
    QCOMPARE(model->rowCount(), 300);
    QTest::keyClick(source, Qt::Key_Home);
    QCOMPARE(model->text().count("global_step/sec"), 2);

    // Scrolled up, the view stays where it is while lines arrive; Follow returns to the tail.
    auto* view = all->findChild<QTreeView*>("lines");
    auto* follow = all->findChild<QToolButton*>("follow");
    QTRY_COMPARE(view->verticalScrollBar()->value(), view->verticalScrollBar()->maximum());
    QVERIFY(all->following() && follow->isChecked());
    view->setFocus();
    QTest::keyClick(view, Qt::Key_Home, Qt::ControlModifier);
    QTRY_VERIFY(!all->following());
    QVERIFY(!follow->isChecked());
    const int position = view->verticalScrollBar()->value();
    const QString before = model->text();
    window.console()->append(
        {{w0, 2.0, 20, "log", "arrived while paused"}, {w1, 2.0, 20, "StepCounterHook", "global_step/sec: 5"}});
    QTest::qWait(100);  // longer than the model's tick
    QCOMPARE(view->verticalScrollBar()->value(), position);
    QCOMPARE(model->text(), before);
    QCOMPARE(follow->text(), QString("Follow (2 new)"));
    QTest::mouseClick(follow, Qt::LeftButton);
    QVERIFY(all->following());
    QVERIFY(model->text().contains("arrived while paused"));
    QVERIFY(model->text().endsWith("global_step/sec: 5  [\u00d73001]"));
    QTRY_COMPARE(view->verticalScrollBar()->value(), view->verticalScrollBar()->maximum());
    QCOMPARE(follow->text(), QString("Follow"));

    // Selected lines copy as text.
    view->selectionModel()->select(model->index(model->rowCount() - 1, 0),
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QTest::keyClick(view, Qt::Key_C, Qt::ControlModifier);
    QVERIFY(QApplication::clipboard()->text().endsWith("global_step/sec: 5  [\u00d73001]"));

    // A flood larger than a page keeps: the newest kMaxLines rows, one removal and one
    // insertion per tick.
    QList<ConsoleLine> flood;
    for (int i = 0; i < ConsoleModel::kMaxLines + 100; ++i)
      flood.append({w0, 3.0, 20, "log", QString("flood %1").arg(i)});
    for (qsizetype at = 0; at < flood.size(); at += 1000) window.console()->append(flood.mid(at, 1000));
    QTRY_COMPARE(model->waiting(), 0);
    QCOMPARE(model->rowCount(), ConsoleModel::kMaxLines);
    QVERIFY(model->text().endsWith(QString("flood %1").arg(ConsoleModel::kMaxLines + 99)));
  }

  void examplesMenuOpensEveryExample() {
    MainWindow window(ClabProcess::programPath("clab"));
    QMenu* examples = nullptr;
    for (QAction* menu : window.menuBar()->actions())
      if (menu->menu() && menu->text() == "&File")
        for (QAction* item : menu->menu()->actions())
          if (item->menu() && item->text() == "&Examples") examples = item->menu();
    QVERIFY(examples);
    const QDir dir(ClabProcess::sourceDir() + "/examples/projects");
    const QStringList files = dir.entryList({"*.clab"}, QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 6);
    QCOMPARE(examples->actions().size(), files.size());
    for (int i = 0; i < files.size(); ++i) {
      QFile file(dir.filePath(files[i]));
      QVERIFY(file.open(QIODevice::ReadOnly));
      const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
      QAction* action = examples->actions()[i];
      QCOMPARE(action->text(), json.value("name").toString());
      action->trigger();
      QCOMPARE(window.project().name, json.value("name").toString());
      QCOMPARE(window.project().program, json.value("program").toString());
      QCOMPARE(window.project().run.last_step, json.value("run").toObject().value("last_step").toInteger());
      QVERIFY(window.path().isEmpty());  // an example is saved where the user says
      QVERIFY(window.undoStack()->isClean());
    }
  }

  void ctrlZInATaskFieldUndoesTheProjectEdit() {
    MainWindow window(ClabProcess::programPath("clab"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    const QString ps = "/job:ps/replica:0/task:0";
    window.scene()->item(ps)->setSelected(true);
    auto* host = window.properties()->findChild<QLineEdit*>();
    auto* port = window.properties()->findChild<QSpinBox*>();
    QCOMPARE(host->text(), QString("127.0.0.1"));

    // Typed and entered: one project edit.
    QTest::mouseClick(host, Qt::LeftButton);
    QTest::keyClick(host, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(host, "localhost");
    QCOMPARE(host->text(), QString("localhost"));
    QSignalSpy edited(window.properties(), &TaskPropertiesView::addressEdited);
    QTest::keyClick(host, Qt::Key_Return);
    QCOMPARE(edited.size(), 1);
    QCOMPARE(window.project().tasksOf("ps").first().host, QString("localhost"));
    QCOMPARE(window.undoStack()->index(), 1);
    // Ctrl+Z (the platform's Undo keys) in the field undoes the project edit, and the field shows the project again.
    QVERIFY(host->hasFocus());
    QTest::keySequence(host, QKeySequence::Undo);
    QCOMPARE(window.project().tasksOf("ps").first().host, QString("127.0.0.1"));
    QCOMPARE(host->text(), QString("127.0.0.1"));
    QCOMPARE(window.undoStack()->index(), 0);
    QTest::keySequence(host, QKeySequence::Redo);
    QCOMPARE(window.project().tasksOf("ps").first().host, QString("localhost"));
    QCOMPARE(host->text(), QString("localhost"));

    // While typing, Ctrl+Z undoes the typing; the project is not touched.
    QTest::keyClicks(host, "x");
    QTest::keySequence(host, QKeySequence::Undo);
    QCOMPARE(host->text(), QString("localhost"));
    QCOMPARE(window.undoStack()->index(), 1);

    // The port field the same way.
    port->setFocus();
    QTest::keyClick(port, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(port, "3333");
    QTest::keyClick(port, Qt::Key_Return);
    QCOMPARE(window.project().tasksOf("ps").first().port, 3333);
    QTest::keySequence(port, QKeySequence::Undo);
    QCOMPARE(window.project().tasksOf("ps").first().port, 2223);
    QCOMPARE(port->value(), 2223);
  }
};

QTEST_MAIN(StudioChartsTest)
#include "tst_studio_charts.moc"
