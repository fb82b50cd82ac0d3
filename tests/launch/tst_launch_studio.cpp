// The studio's side of running beyond this machine: the project keeps its launch settings
// (and an old project saves as it was), editing them is one undoable step, the dialog checks
// what it is given as the file would be read, and Run on hosts runs `clab launch` for real:
// a host that cannot be reached is named on its task's card.
#include "ClabProcess.h"
#include "StudioModels.h"
#include "TaskProcess.h"
#include "cluster/ClusterScene.h"
#include "cluster/TaskItem.h"
#include "launch/LaunchSettingsDialog.h"
#include "launch/RemoteRun.h"
#include "project/Project.h"
#include "views/ConsoleView.h"
#include "window/HostRunController.h"
#include "window/MainWindow.h"

#include <QComboBox>
#include <QJsonDocument>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

using namespace clab::ui;

class LaunchStudioTest : public QObject {
  Q_OBJECT

 private slots:
  void projectKeepsItsLaunchSettings() {
    Project project = Project::digitsMlp();
    // Written before the launch section existed: saved again, still without it.
    QVERIFY(!project.toJson().contains("launch"));
    project.launch.method = "ssh";
    project.launch.hosts["127.0.0.1"].user = "ana";
    project.launch.hosts["127.0.0.1"].ssh_port = 2200;
    project.launch.slurm.port_base = 9100;
    QTemporaryDir dir;
    QString error;
    QVERIFY2(project.save(dir.filePath("p.clab"), &error), qPrintable(error));
    Project loaded;
    QVERIFY2(Project::load(dir.filePath("p.clab"), &loaded, &error), qPrintable(error));
    QVERIFY(loaded.launch == project.launch);
    QCOMPARE(loaded.toJson(), project.toJson());

    QJsonObject json = project.toJson();
    QJsonObject launch = json.value("launch").toObject();
    launch.insert("method", "mpi");
    json.insert("launch", launch);
    QVERIFY(!Project::fromJson(json, &loaded, &error));
    QVERIFY2(error.startsWith("launch.method: 'mpi' is not one of"), qPrintable(error));
  }

  void editingTheSettingsIsOneUndoableStep() {
    MainWindow window(ClabProcess::programPath("clab"));
    window.setProject(Project::seed());
    clab::launch::LaunchSettings settings;
    settings.method = "slurm";
    settings.slurm.partition = "gpu";
    window.editLaunchSettings(settings);
    QVERIFY(window.project().launch == settings);
    QCOMPARE(window.undoStack()->count(), 1);
    window.undoStack()->undo();
    QVERIFY(window.project().launch.IsDefault());
    window.undoStack()->redo();
    QCOMPARE(QString::fromStdString(window.project().launch.slurm.partition), QString("gpu"));
    // The same settings again are no edit.
    window.editLaunchSettings(settings);
    QCOMPARE(window.undoStack()->count(), 1);
  }

  void theDialogChecksWhatItIsGiven() {
    Project project = Project::seedTwoWorkers();
    LaunchSettingsDialog dialog(project.launch, project.hosts());
    QTableWidget* table = dialog.hostTable();
    QCOMPARE(table->rowCount(), 2);  // 127.0.0.1 and "*"
    QCOMPARE(table->item(1, 0)->text(), QString("*"));
    dialog.methodBox()->setCurrentIndex(dialog.methodBox()->findData("ssh"));
    table->item(0, 1)->setText("ana");
    table->item(0, 2)->setText("70000");
    QString error;
    QVERIFY(!dialog.read(&error));
    QCOMPARE(error, QString("127.0.0.1: the SSH port '70000' is not a port (1-65535)"));
    table->item(0, 2)->setText("2222");
    table->item(1, 4)->setText("/scratch/clab");
    dialog.sshConfigEdit()->setText("  /etc/lab/ssh_config ");
    QVERIFY2(dialog.read(&error), qPrintable(error));
    const clab::launch::LaunchSettings settings = dialog.settings();
    QCOMPARE(QString::fromStdString(settings.method), QString("ssh"));
    QCOMPARE(settings.ForHost("127.0.0.1").ssh_port, 2222);
    QCOMPARE(QString::fromStdString(settings.ForHost("other").data_dir), QString("/scratch/clab"));
    QCOMPARE(QString::fromStdString(settings.ssh.config), QString("/etc/lab/ssh_config"));
  }

  // ssh to a port where nothing listens: refused at once, on any machine with an ssh client.
  void anUnreachableHostIsNamedOnItsCard() {
    const int closed = clab::testing::FreePorts(1).front();
    Project project = Project::seed();
    project.launch.method = "ssh";
    project.launch.hosts["127.0.0.1"].ssh_port = closed;
    MainWindow window(ClabProcess::programPath("clab"));
    window.setProject(project);
    QSignalSpy finished(window.hostRun()->remoteRun(), &RemoteRun::finished);
    QString error;
    QVERIFY2(window.hostRun()->startOnHosts(&error), qPrintable(error));
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().at(0).toBool(), false);
    const QString expected = QStringLiteral(
                                 "cannot reach 127.0.0.1:%1 over ssh: ssh: connect to host 127.0.0.1 port %1: "
                                 "Connection refused")
                                 .arg(closed);
    for (const char* task : {"/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0"}) {
      TaskItem* item = window.scene()->item(task);
      QVERIFY(item);
      QVERIFY2(item->toolTip().contains(expected), qPrintable(item->toolTip()));
    }
    QVERIFY(!window.hostRun()->runningOnHosts());
    // The launch's own notes are in "All", not in a tab of no task.
    QVERIFY2(!clab::ui::test::TabNames(window.console()).contains(QString()),
             qPrintable(clab::ui::test::TabNames(window.console()).join(',')));
    // The command line the studio ran, for running it by hand.
    QVERIFY2(window.hostRun()->remoteRun()->command().join(' ').contains("launch"), "");
  }
};

QTEST_MAIN(LaunchStudioTest)
#include "tst_launch_studio.moc"
