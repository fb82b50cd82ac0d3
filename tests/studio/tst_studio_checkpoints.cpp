// ClusterLab Studio's checkpoint browser, offscreen: a damaged checkpoint marked and skipped,
// the checkpoints of a real run listed with their tensors, and a run that restores from the
// checkpoint chosen in the browser.
#include "ClabProcess.h"
#include "StudioModels.h"
#include "models/CheckpointTableModel.h"
#include "models/TensorTableModel.h"

#include "clab/io/TensorBundle.h"
#include "clab/train/CheckpointState.h"

#include "cluster/ClusterScene.h"
#include "cluster/TaskItem.h"
#include "monitor/RunMonitor.h"
#include "project/Project.h"
#include "run/LocalCluster.h"
#include "run/RunController.h"
#include "views/CheckpointsView.h"
#include "views/ConsolePane.h"
#include "views/ConsoleView.h"
#include "views/DashboardView.h"
#include "views/PlacementView.h"
#include "views/RunSettingsView.h"
#include "views/TaskPropertiesView.h"
#include "window/MainWindow.h"
#include "window/SecurityActions.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <csignal>

using namespace clab::ui;
using namespace clab::ui::test;

namespace {

bool ProcessGone(qint64 pid) { return ::kill(static_cast<pid_t>(pid), 0) != 0; }

}  // namespace

class StudioCheckpointsTest : public QObject {
  Q_OBJECT

 private slots:
  void aDamagedCheckpointIsMarkedAndSkipped() {
    // Three checkpoints, the newest one's data cut short: the browser marks it, and says the
    // next run restores the one before it (as the chief does with --on_damaged_checkpoint=previous).
    QTemporaryDir dir;
    tensorflow::CheckpointState state;
    for (int step : {100, 200, 300}) {
      const std::string prefix = QDir(dir.path()).filePath(QStringLiteral("model.ckpt-%1").arg(step)).toStdString();
      std::map<std::string, clab::Tensor> tensors;
      tensors.emplace("w", clab::Tensor::Vector<float>({1, 2, 3, 4}));
      tensors.emplace("global_step", clab::Tensor::Scalar<int64_t>(step));
      QVERIFY(clab::WriteTensorBundle(prefix, tensors).ok());
      state.add_all_model_checkpoint_paths(prefix);
      state.set_model_checkpoint_path(prefix);
    }
    QVERIFY(clab::WriteCheckpointState(dir.path().toStdString(), state).ok());
    const QString newest = QDir(dir.path()).filePath("model.ckpt-300");
    QFile data(QString::fromStdString(clab::BundleDataFile(newest.toStdString())));
    QVERIFY(data.resize(data.size() - 4));

    CheckpointsView view;
    view.setDirectory(dir.path());
    QCOMPARE(view.checkpoints()->rowCount(), 3);
    QCOMPARE(Cell(view.checkpoints(), 0, 0), QString("300"));
    QVERIFY2(!Cell(view.checkpoints(), 0, 3).startsWith("ok"), qPrintable(Cell(view.checkpoints(), 0, 3)));
    QCOMPARE(Cell(view.checkpoints(), 1, 3), QString("ok, 2 tensors"));
    // Whether each is whole and which the next run restores from are data.
    const QModelIndex newest_row = view.checkpoints()->index(0, CheckpointTableModel::kStep);
    QVERIFY(!newest_row.data(CheckpointTableModel::GoodRole).toBool());
    QVERIFY(newest_row.data(CheckpointTableModel::NextRole).toBool());
    QCOMPARE(newest_row.data(CheckpointTableModel::StepRole).toLongLong(), qint64{300});
    QVERIFY(view.checkpoints()->index(1, 0).data(CheckpointTableModel::GoodRole).toBool());
    QVERIFY(!view.checkpoints()->index(1, 0).data(CheckpointTableModel::NextRole).toBool());
    QVERIFY2(NextRestoreText(&view).startsWith("model.ckpt-300 is DAMAGED"), qPrintable(NextRestoreText(&view)));
    QVERIFY2(NextRestoreText(&view).endsWith("the next run restores model.ckpt-200 (step 200) instead"),
             qPrintable(NextRestoreText(&view)));
  }

  void checkpointsOfARunAreListed() {
    QTemporaryDir dir;
    MainWindow window(ClabProcess::programPath("clab"));
    Project project = Project::seed();
    project.run.checkpoint_dir = dir.path();
    window.setProject(project);
    QCOMPARE(window.checkpoints()->checkpoints()->rowCount(), 0);
    QSignalSpy finished(window.cluster(), &LocalCluster::runFinished);
    QVERIFY(window.runProject());
    QVERIFY(finished.wait(30000));
    // The chief saved at the start (step 0) and at the end (step 200).
    QTRY_VERIFY_WITH_TIMEOUT(window.checkpoints()->checkpoints()->rowCount() >= 2, 5000);
    SelectCheckpoint(window.checkpoints(), 0);
    QCOMPARE(window.checkpoints()->tensors()->rowCount(), 3);
    QCOMPARE(Cell(window.checkpoints()->tensors(), 0, 0), QString("global_step"));
    QCOMPARE(Cell(window.checkpoints()->tensors(), 0, 3), QString("200"));
    QCOMPARE(Cell(window.checkpoints()->tensors(), 2, 0), QString("x"));
    QCOMPARE(Cell(window.checkpoints()->tensors(), 2, 3), QString("[[1 2 3 4]]"));
  }

  void restoreOnNextStartResumesFromTheChosenCheckpoint() {
    QTemporaryDir dir;
    MainWindow window(ClabProcess::programPath("clab"));
    Project project = Project::seed();
    project.run.checkpoint_dir = dir.path();
    project.run.last_step = 100;
    window.setProject(project);
    auto run_to = [&](qint64 last_step) {
      RunSettings settings = window.project().run;
      settings.last_step = last_step;
      window.editRunSettings(settings);
      QSignalSpy finished(window.cluster(), &LocalCluster::runFinished);
      QString error;
      if (!window.runProject(&error)) {
        qWarning("the run did not start: %s", qPrintable(error));
        return false;
      }
      if (!finished.wait(60000) || !finished.first().first().toBool()) {
        qWarning("the run to step %lld failed:\n%s", static_cast<long long>(last_step),
                 qPrintable(Lines(window.console())));
        return false;
      }
      return true;
    };
    // Checkpoints at 0 and 100; then, restored from 100, at 100 again and 200.
    QVERIFY(run_to(100));
    QVERIFY(run_to(200));
    QTRY_COMPARE_WITH_TIMEOUT(window.checkpoints()->checkpoints()->rowCount(), 3, 5000);
    QCOMPARE(NextRestoreText(window.checkpoints()), QString("Next run restores from model.ckpt-200 (step 200)"));
    QCOMPARE(Cell(window.checkpoints()->checkpoints(), 1, 0), QString("100"));

    // The older one, chosen: the state file names it, last in the list, nothing dropped.
    const QString chosen = QDir(dir.path()).filePath("model.ckpt-100");
    QString error;
    QVERIFY2(window.checkpoints()->restoreOnNextStart(1, &error), qPrintable(error));
    QCOMPARE(NextRestoreText(window.checkpoints()), QString("Next run restores from model.ckpt-100 (step 100)"));
    auto state = clab::ReadCheckpointState(dir.path().toStdString());
    QVERIFY(state.ok());
    QCOMPARE(QString::fromStdString(state->model_checkpoint_path()), chosen);
    QCOMPARE(state->all_model_checkpoint_paths_size(), 3);
    QCOMPARE(QString::fromStdString(state->all_model_checkpoint_paths(2)), chosen);

    // The next run's chief restores exactly that one, and training goes on from step 100:
    // its restore event names the file and the step read from it, its session's first run
    // read step 100, and it saved model.ckpt-100 again when its session started.
    QVERIFY2(run_to(300), qPrintable(Lines(window.console()).right(4000)));
    QVERIFY2(Lines(window.console()).contains("Restoring parameters from " + chosen),
             qPrintable(Lines(window.console())));
    const TaskStatus chief = window.monitor()->statuses().value("/job:worker/replica:0/task:0");
    QCOMPARE(chief.restored_from, chosen);
    QCOMPARE(chief.restored_step, qint64{100});
    // (The first run's read of the step and its increment are not ordered: 100 or 101.)
    QVERIFY2(chief.first_step == 100 || chief.first_step == 101, qPrintable(QString::number(chief.first_step)));
    QVERIFY(window.monitor()->globalStep() >= 299);
    state = clab::ReadCheckpointState(dir.path().toStdString());
    QVERIFY(state.ok());
    QCOMPARE(QString::fromStdString(state->model_checkpoint_path()), QDir(dir.path()).filePath("model.ckpt-300"));

    // A damaged checkpoint is refused, naming the file, and the state file stays as it is.
    QTRY_VERIFY_WITH_TIMEOUT(Cell(window.checkpoints()->checkpoints(), 0, 0) == "300", 5000);
    const int oldest = window.checkpoints()->checkpoints()->rowCount() - 1;
    QCOMPARE(Cell(window.checkpoints()->checkpoints(), oldest, 0), QString("0"));
    const QString data =
        QString::fromStdString(clab::BundleDataFile(QDir(dir.path()).filePath("model.ckpt-0").toStdString()));
    QFile file(data);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QByteArray bytes = file.readAll();
    for (char& byte : bytes) byte = static_cast<char>(byte ^ 0x5a);
    file.seek(0);
    file.write(bytes);
    file.close();
    window.checkpoints()->refresh();
    QVERIFY(Cell(window.checkpoints()->checkpoints(), oldest, 3).contains(data));
    const QString before = NextRestoreText(window.checkpoints());
    QVERIFY(!window.checkpoints()->restoreOnNextStart(oldest, &error));
    QVERIFY2(error.contains(data), qPrintable(error));
    QCOMPARE(NextRestoreText(window.checkpoints()), before);
  }
};

QTEST_MAIN(StudioCheckpointsTest)
#include "tst_studio_checkpoints.moc"
