// ClusterLab Studio driven as a user drives it, offscreen: the project file (round trip,
// errors that name the field, validation), a local run of the seed program on a ps and two
// workers watched live until the global step passes 50 (placement table, task states), a
// run that finishes on its own, a ps killed mid-run shown as crashed, and Stop leaving no
// process behind; the console's tab per task and the devices of attached tasks. The
// checkpoint browser has its own suite, tst_studio_checkpoints.
#include "ClabProcess.h"
#include "StudioModels.h"

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
#include "views/ScalarsView.h"
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

class StudioTest : public QObject {
  Q_OBJECT

 private slots:
  void projectRoundTrip() {
    QTemporaryDir dir;
    const QString path = dir.filePath("seed.clab");
    Project seed = Project::seedTwoWorkers();
    seed.run.checkpoint_dir = "/tmp/ckpt";
    seed.platform = QJsonObject{{"link", QJsonObject{{"bandwidth", "1Gbps"}, {"latency", "20us"}}}};
    QString error;
    QVERIFY2(seed.save(path, &error), qPrintable(error));
    Project loaded;
    QVERIFY2(Project::load(path, &loaded, &error), qPrintable(error));
    QCOMPARE(loaded.toJson(), seed.toJson());
    QCOMPARE(loaded.clusterSpec(), QString("ps=127.0.0.1:2223;worker=127.0.0.1:2222,127.0.0.1:2224"));
    QCOMPARE(loaded.run.last_step, qint64(20000));
    QCOMPARE(loaded.platform, seed.platform);
    QVERIFY(loaded.validate().isEmpty());
  }

  void projectErrorsNameTheField_data() {
    // clang-format off
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error");
    QTest::newRow("not JSON") << QByteArray("{\"format\": ") << "offset";
    QTest::newRow("not a project") << QByteArray("{\"cluster\": {}}") << "format: not a ClusterLab project";
    QTest::newRow("bad address") << QByteArray(R"({"format": "clusterlab-project", "cluster": {"ps": ["nohost"]}})")
                                 << "cluster.ps[0]: 'nohost' is not host:port";
    QTest::newRow("port not a number")
        << QByteArray(R"({"format": "clusterlab-project", "cluster": {"worker": ["h:x1"]}})")
        << "cluster.worker[0]: 'h:x1': the port is not a number";
    QTest::newRow("empty job") << QByteArray(R"({"format": "clusterlab-project", "cluster": {"ps": []}})")
                               << "cluster.ps: wants a non-empty list";
    QTest::newRow("setting of the wrong type")
        << QByteArray(R"({"format": "clusterlab-project", "cluster": {"ps": ["h:1"]}, "run": {"last_step": "many"}})")
        << "run.last_step: wants a whole number";
    QTest::newRow("unknown program")
        << QByteArray(R"({"format": "clusterlab-project", "program": "mnist", "cluster": {"ps": ["h:1"]}})")
        << "program: 'mnist' is unknown";
    QTest::newRow("link of zero bandwidth")
        << QByteArray(R"({"format": "clusterlab-project", "cluster": {"ps": ["h:1"]}, "platform": {"link": {"bandwidth": 0}}})")
        << "platform.link.bandwidth: 0 is not above zero";
    // clang-format on
  }
  void projectErrorsNameTheField() {
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    QTemporaryDir dir;
    const QString path = dir.filePath("bad.clab");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(json);
    file.close();
    Project project;
    QString message;
    QVERIFY(!Project::load(path, &project, &message));
    QVERIFY2(message.startsWith(path + ": "), qPrintable(message));
    QVERIFY2(message.contains(error), qPrintable(message));
  }

  void validationNamesTheTask() {
    Project project = Project::seedTwoWorkers();
    project.tasks[1].port = 99999;                  // worker 0
    project.tasks[2].port = project.tasks[0].port;  // worker 1 on the ps's address
    const QStringList problems = project.validate();
    QVERIFY2(problems.contains("/job:worker/replica:0/task:0: port 99999 is out of range (1-65535)"),
             qPrintable(problems.join('\n')));
    QVERIFY2(problems.contains("/job:worker/replica:0/task:1: 127.0.0.1:2223 is also the address of "
                               "/job:ps/replica:0/task:0"),
             qPrintable(problems.join('\n')));
    // The canvas shows the problem on the task's card, and Run refuses to start.
    MainWindow window(ClabProcess::programPath("clab"));
    window.setProject(project);
    QVERIFY(window.scene()->item("/job:worker/replica:0/task:0")->toolTip().contains("out of range"));
    QString error;
    QVERIFY(!window.runProject(&error));
    QVERIFY2(error.contains("port 99999"), qPrintable(error));
    QVERIFY(!window.isRunning());
  }

  void editsAreUndoableAndValidated() {
    MainWindow window(ClabProcess::programPath("clab"));
    window.setProject(Project::seed());
    QVERIFY(window.undoStack()->isClean());
    const QString worker = "/job:worker/replica:0/task:0";
    // A bad port, typed in the properties panel: taken, shown as a problem on the card.
    window.scene()->item(worker)->setSelected(true);
    window.properties()->setPort(99999);
    QCOMPARE(window.project().tasksOf("worker").first().port, 99999);
    QVERIFY(window.scene()->item(worker)->toolTip().contains("port 99999 is out of range"));
    QVERIFY(!window.undoStack()->isClean());
    // Fixed by undo; redo brings it back; a second edit fixes it for good.
    window.undoStack()->undo();
    QCOMPARE(window.project().tasksOf("worker").first().port, 2222);
    QVERIFY(window.project().validate().isEmpty());
    window.undoStack()->redo();
    QCOMPARE(window.project().tasksOf("worker").first().port, 99999);
    window.editAddress(worker, "127.0.0.1", 2230);
    QVERIFY(window.project().validate().isEmpty());
    QCOMPARE(window.undoStack()->count(), 2);

    // Add and remove tasks; indices stay 0..n-1.
    window.addTask("worker");
    window.addTask("worker");
    QCOMPARE(window.project().tasksOf("worker").size(), 3);
    window.removeTask("/job:worker/replica:0/task:1");
    const QList<ProjectTask> workers = window.project().tasksOf("worker");
    QCOMPARE(workers.size(), 2);
    QCOMPARE(workers[1].index, 1);
    QVERIFY(window.project().validate().isEmpty());
    window.undoStack()->undo();
    QCOMPARE(window.project().tasksOf("worker").size(), 3);
  }

  void clusterExportsAndImports() {
    MainWindow window(ClabProcess::programPath("clab"));
    window.setProject(Project::seedTwoWorkers());
    const QString tf_config = window.exportCluster("TF_CONFIG", "/job:worker/replica:0/task:1");
    const QJsonObject config = QJsonDocument::fromJson(tf_config.toUtf8()).object();
    QCOMPARE(config["task"].toObject()["type"].toString(), QString("worker"));
    QCOMPARE(config["task"].toObject()["index"].toInt(), 1);
    QCOMPARE(window.exportCluster("Python dict"),
             QString("{'ps': ['127.0.0.1:2223'], 'worker': ['127.0.0.1:2222', '127.0.0.1:2224']}"));
    // Re-import the TF_CONFIG into the one-worker seed: the three tasks come back.
    window.setProject(Project::seed());
    QString error;
    QVERIFY2(window.importCluster(tf_config, &error), qPrintable(error));
    QCOMPARE(window.project().clusterSpec(), QString("ps=127.0.0.1:2223;worker=127.0.0.1:2222,127.0.0.1:2224"));
    // The Python dict of a TensorFlow program imports too.
    QVERIFY2(window.importCluster("{'ps': ['10.0.0.1:2222'], 'worker': ['10.0.0.2:2222']}", &error), qPrintable(error));
    QCOMPARE(window.project().clusterSpec(), QString("ps=10.0.0.1:2222;worker=10.0.0.2:2222"));
    window.undoStack()->undo();
    // Bad input names what is wrong and changes nothing.
    QVERIFY(!window.importCluster("ps=127.0.0.1:99999", &error));
    QVERIFY2(error.contains("99999"), qPrintable(error));
    QCOMPARE(window.project().tasks.size(), 3);
    window.undoStack()->undo();
    QCOMPARE(window.project().tasks.size(), 2);
  }

  void runSettingsAreUndoableEdits() {
    MainWindow window(ClabProcess::programPath("clab"));
    window.setProject(Project::seed());
    RunSettings settings = window.project().run;
    settings.last_step = 500;
    settings.checkpoint_dir = "/tmp/seed-ckpt";
    window.editRunSettings(settings);
    QCOMPARE(window.project().run.last_step, qint64(500));
    QCOMPARE(window.runSettings()->settings().checkpoint_dir, QString("/tmp/seed-ckpt"));
    window.undoStack()->undo();
    QCOMPARE(window.project().run.last_step, qint64(200));
    QCOMPARE(window.runSettings()->settings().last_step, qint64(200));
  }

  // The chief's checkpoint interval: edited in the run settings, one undoable step each,
  // saved in the .clab, and given to the chief in the start commands.
  void checkpointIntervalIsARunSetting() {
    MainWindow window(ClabProcess::programPath("clab"));
    Project project = Project::digitsMlp();
    project.run.checkpoint_dir = "/tmp/digits-ckpt";
    window.setProject(project);
    RunSettingsView* view = window.runSettings();
    auto type_into = [](QSpinBox* box, const char* text) {
      box->selectAll();
      QTest::keyClicks(box, text);
      QTest::keyClick(box, Qt::Key_Enter);
    };
    type_into(view->saveCheckpointStepsBox(), "250");
    QCOMPARE(window.project().run.save_checkpoint_steps, qint64(250));
    type_into(view->saveCheckpointSecsBox(), "45");
    QCOMPARE(window.project().run.save_checkpoint_secs, 45);
    QCOMPARE(window.undoStack()->count(), 2);

    // "Copy start commands": the chief gets its directory and interval, no other task does.
    QAction* copy = nullptr;
    for (QAction* action : window.findChildren<QAction*>())
      if (action->text() == "&Copy start commands") copy = action;
    QVERIFY(copy != nullptr);
    copy->trigger();
    const QStringList lines = QApplication::clipboard()->text().split('\n');
    QCOMPARE(lines, window.startCommands());
    QCOMPARE(lines.size(), 3);
    const QString spec = window.project().clusterSpec();
    QCOMPARE(lines[0],
             QString("clab server --cluster '%1' --job_name ps --task_index 0 --until_workers_done").arg(spec));
    QVERIFY2(lines[1].startsWith(QString("clab example train --model digits-mlp --cluster '%1' --job_name worker "
                                         "--task_index 0 --last_step 6000")
                                     .arg(spec)),
             qPrintable(lines[1]));
    QVERIFY2(
        lines[1].endsWith("--checkpoint_dir /tmp/digits-ckpt --save_checkpoint_steps 250 --save_checkpoint_secs 45"),
        qPrintable(lines[1]));
    QVERIFY2(!lines[2].contains("checkpoint"), qPrintable(lines[2]));

    // Saved and read back.
    QTemporaryDir dir;
    const QString path = dir.filePath("digits.clab");
    QString error;
    QVERIFY2(window.project().save(path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject run = QJsonDocument::fromJson(file.readAll()).object().value("run").toObject();
    QCOMPARE(run.value("save_checkpoint_steps").toInteger(), qint64(250));
    QCOMPARE(run.value("save_checkpoint_secs").toInt(), 45);
    Project loaded;
    QVERIFY2(Project::load(path, &loaded, &error), qPrintable(error));
    QCOMPARE(loaded.run.save_checkpoint_steps, qint64(250));
    QCOMPARE(loaded.run.save_checkpoint_secs, 45);
    auto file_view = loaded.toProjectFile(path);
    QVERIFY(file_view.ok());
    QCOMPARE(file_view->run.save_checkpoint_steps, int64_t{250});

    // Undone one edit at a time, the widgets following.
    window.undoStack()->undo();
    QCOMPARE(window.project().run.save_checkpoint_secs, 0);
    QCOMPARE(view->saveCheckpointSecsBox()->value(), 0);
    QCOMPARE(view->saveCheckpointStepsBox()->value(), 250);
    window.undoStack()->undo();
    QCOMPARE(window.project().run.save_checkpoint_steps, qint64(0));
    QCOMPARE(view->saveCheckpointStepsBox()->value(), 0);
    QVERIFY(!window.startCommands()[1].contains("save_checkpoint"));
    window.undoStack()->redo();
    QCOMPARE(window.project().run.save_checkpoint_steps, qint64(250));

    // A negative interval in a file is named.
    QJsonObject json = window.project().toJson();
    QJsonObject bad_run = json.value("run").toObject();
    bad_run.insert("save_checkpoint_secs", -5);
    json.insert("run", bad_run);
    QVERIFY(!Project::fromJson(json, &loaded, &error));
    QVERIFY2(error.startsWith("run.save_checkpoint_secs: -5"), qPrintable(error));
  }

  void consoleHasATabPerTask() {
    ConsoleView console;
    const QString ps = "/job:ps/replica:0/task:0";
    const QString worker0 = "/job:worker/replica:0/task:0";
    const QString worker10 = "/job:worker/replica:0/task:10";
    const QString worker2 = "/job:worker/replica:0/task:2";
    QCOMPARE(TabNames(&console), QStringList{"All"});
    console.append({{worker10, 1.0, 20, "log", "ten says hello"}, {ps, 1.0, 20, "state", "LISTENING: up"}});
    console.append({{worker2, 1.0, 30, "StepCounterHook", "two is slow"},
                    {worker0, 1.0, 40, "error", "zero failed"},
                    {worker2, 1.0, 20, "LoggingTensorHook", "loss = 0.5"}});
    // Tabs appear as tasks speak, in task order (indices as numbers).
    QCOMPARE(TabNames(&console), (QStringList{"All", "ps:0", "worker:0", "worker:2", "worker:10"}));
    QCOMPARE(Lines(&console).count('\n'), 4);  // five lines
    QVERIFY(Lines(&console).contains(worker10 + " [log] ten says hello"));
    const QString two = Lines(&console, worker2);
    QCOMPARE(two.count('\n'), 1);
    QVERIFY(two.contains("[StepCounterHook] two is slow") && two.contains("loss = 0.5"));
    QVERIFY(!two.contains("hello") && !two.contains(worker2));
    // Each tab filters on its own.
    SetFilter(console.pane(worker2), 30, {});
    QCOMPARE(Lines(&console, worker2).count('\n'), 0);
    QVERIFY(Lines(&console, worker2).contains("two is slow"));
    QCOMPARE(Lines(&console).count('\n'), 4);
    SetFilter(console.pane(), 0, "loss");
    QVERIFY(Lines(&console).contains("loss = 0.5") && !Lines(&console).contains("hello"));
    // A filtered tab still takes new lines; the filter applies to them.
    console.append({{worker2, 2.0, 20, "log", "quiet"}, {worker2, 2.0, 40, "error", "loud"}});
    QVERIFY(Lines(&console, worker2).contains("loud") && !Lines(&console, worker2).contains("quiet"));
    // More than a tab keeps: the newest stay.
    QList<ConsoleLine> many;
    for (int i = 0; i < ConsoleModel::kMaxLines + 500; ++i)
      many.append({ps, 3.0, 20, "log", QString("line %1").arg(i)});
    console.append(many);
    const QString kept = Lines(&console, ps);
    QCOMPARE(kept.count('\n'), ConsoleModel::kMaxLines - 1);
    QVERIFY(kept.endsWith(QString("line %1").arg(ConsoleModel::kMaxLines + 499)));
    QVERIFY(!kept.contains("line 499\n"));
    console.clear();
    QCOMPARE(TabNames(&console), QStringList{"All"});
    QVERIFY(Lines(&console).isEmpty() && Lines(&console, ps).isEmpty());
  }

  void attachWatchesTasksStartedElsewhere() {
    // A cluster started by hand (here: by the test) at the project's addresses.
    QTcpServer probe_a, probe_b;
    QVERIFY(probe_a.listen(QHostAddress::LocalHost) && probe_b.listen(QHostAddress::LocalHost));
    Project project = Project::seed();
    project.tasks[0].port = probe_a.serverPort();
    project.tasks[1].port = probe_b.serverPort();
    probe_a.close();
    probe_b.close();
    const QString spec = project.clusterSpec();
    QProcess ps, worker;
    ps.start(ClabProcess::programPath("clab"), {"server", "--cluster", spec, "--job_name", "ps"});
    worker.start(ClabProcess::programPath("clab"), {"example", "seed", "--cluster", spec, "--job_name", "worker",
                                                    "--last_step", "100000000", "--max_seconds", "60"});
    QVERIFY(ps.waitForStarted() && worker.waitForStarted());

    MainWindow window(ClabProcess::programPath("clab"));
    window.setProject(project);
    window.attach();
    QVERIFY(window.isAttached());
    QVERIFY(!window.isRunning());  // nothing was started by the studio
    QTRY_VERIFY_WITH_TIMEOUT(window.monitor()->globalStep() >= 50, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(window.runControl()->conditionOf("/job:ps/replica:0/task:0") == TaskCondition::kServing,
                             10000);
    QCOMPARE(StateOf(window.dashboard(), "/job:ps/replica:0/task:0"), QString("listening"));
    QCOMPARE(ConditionOf(window.dashboard(), "/job:ps/replica:0/task:0"), TaskCondition::kServing);
    QTRY_VERIFY_WITH_TIMEOUT(!window.placement()->deviceOf("MatMul").isEmpty(), 10000);
    // Each task said what devices it has: on its card's tooltip and in the task panel.
    const QString ps_cpu = "/job:ps/replica:0/task:0/device:CPU:0";
    const QString worker_cpu = "/job:worker/replica:0/task:0/device:CPU:0";
    QTRY_VERIFY_WITH_TIMEOUT(window.scene()->item("/job:ps/replica:0/task:0")->toolTip().contains(ps_cpu), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(window.scene()->item("/job:worker/replica:0/task:0")->toolTip().contains(worker_cpu),
                             10000);
    QCOMPARE(window.scene()->item("/job:ps/replica:0/task:0")->devicesSummary(), QString("CPU:0"));
    QVERIFY(window.scene()->item("/job:ps/replica:0/task:0")->toolTip().contains("(CPU, 256 MiB)"));
    window.scene()->item("/job:ps/replica:0/task:0")->setSelected(true);
    QVERIFY2(window.properties()->devicesText().contains(ps_cpu), qPrintable(window.properties()->devicesText()));
    QVERIFY(window.properties()->devicesText().contains("CPU, 256 MiB"));
    // The console has a tab per task.
    QTRY_VERIFY_WITH_TIMEOUT(TabNames(window.console()).contains("worker:0"), 5000);
    QVERIFY(TabNames(window.console()).contains("ps:0"));
    // Choosing a checkpoint to restore is off while attached.
    QString refused;
    QVERIFY(!window.checkpoints()->restoreOnNextStart(0, &refused));
    QVERIFY2(refused.contains("Stop the run first"), qPrintable(refused));
    window.detach();
    QVERIFY(!window.isAttached());
    // Detaching leaves the tasks alone.
    QCOMPARE(worker.state(), QProcess::Running);
    for (QProcess* process : {&worker, &ps}) {
      process->kill();
      process->waitForFinished(5000);
    }
  }

  void localRunIsWatchedLiveAndStopped() {
    MainWindow window(ClabProcess::programPath("clab"));
    Project project = Project::seedTwoWorkers();
    window.setProject(project);
    QString error;
    QVERIFY2(window.runProject(&error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(window.monitor()->globalStep() >= 50, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(
        window.runControl()->conditionOf("/job:worker/replica:0/task:1") == TaskCondition::kTraining, 15000);
    QVERIFY(StateOf(window.dashboard(), "/job:worker/replica:0/task:1").startsWith("training, step "));
    QCOMPARE(ConditionOf(window.dashboard(), "/job:worker/replica:0/task:1"), TaskCondition::kTraining);
    QVERIFY(GlobalStepText(window.dashboard()).startsWith("global step "));
    // The placement log arrived as a table: variables on the ps, MatMul on the workers.
    QTRY_VERIFY_WITH_TIMEOUT(!window.placement()->deviceOf("MatMul").isEmpty(), 10000);
    QVERIFY(window.placement()->deviceOf("MatMul").startsWith("/job:worker/replica:0/task:"));
    QCOMPARE(window.placement()->deviceOf("w"), QString("/job:ps/replica:0/task:0/device:CPU:0"));
    QCOMPARE(window.placement()->deviceOf("global_step"), QString("/job:ps/replica:0/task:0/device:CPU:0"));
    QVERIFY(Lines(window.console()).contains("MODEL_READY"));
    // A task's tab opens with its first line, which may still be on its way (the ps does not
    // wait for the studio's watch: its first lines may come after the workers').
    QTRY_COMPARE_WITH_TIMEOUT(TabNames(window.console()), (QStringList{"All", "ps:0", "worker:0", "worker:1"}), 10000);
    QVERIFY(Lines(window.console(), "/job:worker/replica:0/task:1").contains("MODEL_READY"));
    // Local tasks report their devices too.
    QTRY_VERIFY_WITH_TIMEOUT(window.scene()->item("/job:worker/replica:0/task:1")->devicesSummary() == "CPU:0", 10000);
    // The workers report the bytes they exchange with the ps every second: on the links.
    QTRY_VERIFY_WITH_TIMEOUT(
        window.scene()->linkLabel("/job:ps/replica:0/task:0", "/job:worker/replica:0/task:1").endsWith("B/s"), 10000);

    const QList<qint64> pids = window.cluster()->pids();
    QCOMPARE(pids.size(), 3);
    QSignalSpy finished(window.cluster(), &LocalCluster::runFinished);
    window.stopRun();
    QVERIFY(finished.wait(15000));
    QVERIFY(!window.isRunning());
    for (qint64 pid : pids) QTRY_VERIFY_WITH_TIMEOUT(ProcessGone(pid), 5000);
    // Stop is not a crash: every task says "stopped" with the stopped light, and nothing
    // trains any more (no rate, no traffic on the links).
    for (const ProjectTask& task : project.tasks) {
      QCOMPARE(window.runControl()->conditionOf(task.name()), TaskCondition::kStopped);
      QCOMPARE(StateOf(window.dashboard(), task.name()), QString("stopped"));
      QCOMPARE(ConditionOf(window.dashboard(), task.name()), TaskCondition::kStopped);
      QCOMPARE(window.scene()->item(task.name())->light(), ConditionColor(TaskCondition::kStopped));
    }
    QCOMPARE(window.monitor()->totalStepsPerSecond(), 0.0);
    QTRY_VERIFY_WITH_TIMEOUT(
        window.scene()->linkLabel("/job:ps/replica:0/task:0", "/job:worker/replica:0/task:1").isEmpty(), 5000);
  }

  void aNewProjectForgetsThePreviousRun() {
    MainWindow window(ClabProcess::programPath("clab"));
    window.setProject(Project::seedTwoWorkers());
    QVERIFY(window.runProject());
    QTRY_VERIFY_WITH_TIMEOUT(window.monitor()->globalStep() >= 20, 30000);
    const QList<qint64> pids = window.cluster()->pids();
    // Opening another project (here the one-worker seed, whose task names are the same)
    // stops the run and keeps nothing of it: states, step, devices, console, placement.
    window.setProject(Project::seed());
    for (qint64 pid : pids) QTRY_VERIFY_WITH_TIMEOUT(ProcessGone(pid), 10000);
    QCoreApplication::processEvents();
    for (const ProjectTask& task : window.project().tasks) {
      QCOMPARE(window.runControl()->conditionOf(task.name()), TaskCondition::kNotRunning);
      QCOMPARE(StateOf(window.dashboard(), task.name()), QString("not running"));
      QVERIFY(window.scene()->item(task.name())->devicesSummary().isEmpty());
    }
    QCOMPARE(window.monitor()->globalStep(), qint64(-1));
    QCOMPARE(GlobalStepText(window.dashboard()), QString("global step -"));
    QVERIFY(Lines(window.console()).isEmpty());
    QVERIFY(window.placement()->deviceOf("MatMul").isEmpty());
  }

  void protectedRunIsWatchedOverTls() {
    MainWindow window(ClabProcess::programPath("clab"));
    window.setProject(Project::seedTwoWorkers());
    QTemporaryDir certs;
    QVERIFY(certs.isValid());
    QString error;
    // Run > Protect the cluster: the certificates of `clab cert`, set as one undoable edit.
    QVERIFY2(window.security()->protectProject(certs.path(), &error), qPrintable(error));
    QCOMPARE(QString::fromStdString(window.project().security.tls_dir), certs.path());
    QVERIFY(QFile::exists(certs.filePath("worker-1.crt")) && QFile::exists(certs.filePath("client.key")));
    window.undoStack()->undo();
    QVERIFY(window.project().security.IsDefault());
    window.undoStack()->redo();
    QCOMPARE(QString::fromStdString(window.project().security.token_file), certs.filePath("cluster.token"));
    // The tasks run with TLS and the token; the studio watches them as the cluster's client.
    QVERIFY2(window.runProject(&error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(window.monitor()->globalStep() >= 5, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(Lines(window.console()).contains("with TLS (certificates from " + certs.path()), 10000);
    QSignalSpy finished(window.cluster(), &LocalCluster::runFinished);
    window.stopRun();
    QVERIFY(finished.wait(15000));
  }

  void trainingRunShowsAFallingLoss() {
    MainWindow window(ClabProcess::programPath("clab"));
    Project project = Project::digitsMlp();
    project.run.last_step = 1200;
    window.setProject(project);
    QSignalSpy finished(window.cluster(), &LocalCluster::runFinished);
    QVERIFY(window.runProject());
    QVERIFY(finished.wait(90000));
    QCOMPARE(finished.first().first().toBool(), true);
    QVERIFY2(window.dashboard()->scalars()->lossPoints() >= 4,
             qPrintable(QString::number(window.dashboard()->scalars()->lossPoints())));
    QVERIFY(window.monitor()->globalStep() >= 1199);
    QVERIFY(Lines(window.console()).contains("loss = "));
  }

  void shortRunFinishesOnItsOwnWithEveryEvent() {
    MainWindow window(ClabProcess::programPath("clab"));
    window.setProject(Project::seed());  // the tutorial's 200 steps: over in a moment
    QSignalSpy finished(window.cluster(), &LocalCluster::runFinished);
    QVERIFY(window.runProject());
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.first().first().toBool(), true);
    // The worker waited for the studio to watch it, so even this short run lost no event.
    QVERIFY2(window.monitor()->globalStep() >= 199, qPrintable(QString::number(window.monitor()->globalStep())));
    // The worker ended on its own after its last step; the ps was stopped with the run.
    QCOMPARE(window.runControl()->conditionOf("/job:worker/replica:0/task:0"), TaskCondition::kFinished);
    QVERIFY(StateOf(window.dashboard(), "/job:worker/replica:0/task:0").startsWith("finished"));
    QCOMPARE(window.runControl()->conditionOf("/job:ps/replica:0/task:0"), TaskCondition::kStopped);
    QVERIFY(!window.placement()->deviceOf("MatMul").isEmpty());
  }

  void killedPsIsShownAsCrashedAndRecoveredAfterRestart() {
    MainWindow window(ClabProcess::programPath("clab"));
    window.setProject(Project::seedTwoWorkers());
    QVERIFY(window.runProject());
    QTRY_VERIFY_WITH_TIMEOUT(window.monitor()->globalStep() >= 20, 30000);
    const QString ps = "/job:ps/replica:0/task:0";
    const QString chief = "/job:worker/replica:0/task:0";
    QVERIFY(window.killTask(ps));
    QTRY_COMPARE_WITH_TIMEOUT(window.runControl()->conditionOf(ps), TaskCondition::kKilled, 10000);
    QCOMPARE(StateOf(window.dashboard(), ps), QString("killed (SIGKILL)"));
    QCOMPARE(ConditionOf(window.dashboard(), ps), TaskCondition::kKilled);
    QCOMPARE(window.scene()->item(ps)->light(), ConditionColor(TaskCondition::kKilled));
    // The ps's own tab keeps its last output.
    QTRY_VERIFY_WITH_TIMEOUT(
        Lines(window.console(), ps).contains("the process ended: killed (SIGKILL); its last output:"), 5000);
    // The workers' monitored sessions say they lost the ps and wait for it.
    QTRY_VERIFY_WITH_TIMEOUT(Lines(window.console()).contains("An error was raised"), 15000);
    // Nothing is shown as training while the ps is gone: no worker is "training", the rate
    // falls to 0 and the links to the dead ps go quiet.
    QTRY_COMPARE_WITH_TIMEOUT(window.monitor()->totalStepsPerSecond(), 0.0, 10000);
    for (const QString& worker : {chief, QString("/job:worker/replica:0/task:1")}) {
      QTRY_VERIFY_WITH_TIMEOUT(window.runControl()->conditionOf(worker) != TaskCondition::kTraining, 10000);
      QVERIFY(!StateOf(window.dashboard(), worker).startsWith("training"));
      QVERIFY(window.scene()->item(worker)->light() != ConditionColor(TaskCondition::kTraining));
    }
    QTRY_VERIFY_WITH_TIMEOUT(window.scene()->linkLabel(ps, chief).isEmpty(), 10000);

    // Restarted, the ps has lost its variables: the chief initialises them again (no
    // checkpoint directory here) and both workers train on.
    QVERIFY(window.restartTask(ps));
    QTRY_COMPARE_WITH_TIMEOUT(window.runControl()->conditionOf(ps), TaskCondition::kServing, 15000);
    QTRY_VERIFY_WITH_TIMEOUT(Lines(window.console()).count("Running the initializers") >= 2, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(window.runControl()->conditionOf(chief), TaskCondition::kTraining, 20000);
    const qint64 resumed = window.monitor()->statuses().value(chief).local_step;
    QTRY_VERIFY_WITH_TIMEOUT(window.monitor()->statuses().value(chief).local_step > resumed + 50, 20000);
    // The timeline marks the kill and the restart, the failed steps and the recoveries.
    QCOMPARE(MarkCount(window.dashboard(), "fault"), 2);
    QVERIFY(MarkCount(window.dashboard(), "error") >= 1);
    QTRY_VERIFY_WITH_TIMEOUT(MarkCount(window.dashboard(), "recovered") >= 1, 10000);

    const QList<qint64> pids = window.cluster()->pids();
    QSignalSpy finished(window.cluster(), &LocalCluster::runFinished);
    window.stopRun();
    QVERIFY(finished.wait(15000));
    for (qint64 pid : pids) QTRY_VERIFY_WITH_TIMEOUT(ProcessGone(pid), 5000);
  }
};

QTEST_MAIN(StudioTest)
#include "tst_studio.moc"
