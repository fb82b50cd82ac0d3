// What the studio says when a task cannot be watched or a Run is refused, in the real
// window (offscreen): attached to a port nobody listens on, to a port where a plain TCP
// listener (not gRPC) accepts, to a gRPC server without ClusterLab's event stream; a Run
// of a project whose task is meant for another host; a Run of a cluster with problems.
// Each says so on the task's card and in the banner over the canvas and dashboard, not
// only in the status bar.
#include "ClabProcess.h"

#include "cluster/ClusterScene.h"
#include "cluster/TaskItem.h"
#include "project/Project.h"
#include "run/RunController.h"
#include "run/TaskLiveState.h"
#include "window/MainWindow.h"
#include "window/NoticeBanner.h"

#include "tensorflow/worker.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <QPushButton>
#include <QTcpServer>
#include <QtTest>

using namespace clab::ui;

namespace {

const QString kPs = "/job:ps/replica:0/task:0";
const QString kWorker = "/job:worker/replica:0/task:0";
constexpr int kWait = 20000;

// A loopback port that nothing listens on (taken from the system, then let go).
int FreePort() {
  QTcpServer server;
  if (!server.listen(QHostAddress::LocalHost, 0)) return 0;
  return server.serverPort();
}

Project TwoTasks(const QString& ps_host, int ps_port, const QString& worker_host, int worker_port) {
  Project project = Project::seed();
  project.tasks = {{"ps", 0, ps_host, ps_port}, {"worker", 0, worker_host, worker_port}};
  return project;
}

// Answers GetStatus, as every TensorFlow server does; nothing else.
class TensorFlowLike : public tensorflow::WorkerService::Service {
 public:
  grpc::Status GetStatus(grpc::ServerContext*, const tensorflow::GetStatusRequest*,
                         tensorflow::GetStatusResponse*) override {
    return grpc::Status::OK;
  }
};

}  // namespace

class StudioFeedbackTest : public QObject {
  Q_OBJECT

 private slots:
  void attachToAPortNobodyListensOn() {
    MainWindow window(ClabProcess::programPath("clab"));
    window.show();
    window.setProject(TwoTasks("127.0.0.1", FreePort(), "127.0.0.1", FreePort()));
    window.attach();
    QVERIFY(window.isAttached());
    const QString refused = "unreachable: nothing listens on its port";
    QTRY_COMPARE_WITH_TIMEOUT(window.scene()->item(kPs)->statusText(), refused, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(window.scene()->item(kWorker)->statusText(), refused, kWait);
    QCOMPARE(window.runControl()->conditionOf(kPs), TaskCondition::kUnreachable);
    QCOMPARE(window.scene()->item(kPs)->light(), ConditionColor(TaskCondition::kUnreachable));
    QTRY_VERIFY_WITH_TIMEOUT(window.banner()->text().startsWith("Tasks that cannot be watched:\nps / task 0: "), kWait);
    QTRY_VERIFY_WITH_TIMEOUT(window.banner()->text().contains("worker / task 0: " + refused), kWait);
    QVERIFY2(window.banner()->text().contains("ps / task 0: " + refused), qPrintable(window.banner()->text()));
    QVERIFY(window.banner()->text().contains("Connection refused"));
    QVERIFY(window.banner()->isVisible());
    // Detached and attached again to a project with a listening task: the banner goes when
    // nothing is wrong any more.
    window.detach();
    window.setProject(Project::seed());
    QVERIFY(window.banner()->text().isEmpty());
    QVERIFY(!window.banner()->isVisible());
  }

  void attachToAPortWhereSomethingElseListens() {
    // A plain TCP listener: it accepts connections and never says a word of HTTP/2.
    QTcpServer listener;
    QVERIFY(listener.listen(QHostAddress::LocalHost, 0));
    MainWindow window(ClabProcess::programPath("clab"));
    window.show();
    window.setProject(TwoTasks("127.0.0.1", listener.serverPort(), "127.0.0.1", FreePort()));
    window.attach();
    const QString not_grpc = "not a gRPC server: another program has its port";
    QTRY_COMPARE_WITH_TIMEOUT(window.scene()->item(kPs)->statusText(), not_grpc, kWait);
    QCOMPARE(window.runControl()->conditionOf(kPs), TaskCondition::kNotWatchable);
    QTRY_COMPARE_WITH_TIMEOUT(window.scene()->item(kWorker)->statusText(),
                              QString("unreachable: nothing listens on its port"), kWait);
    QTRY_VERIFY_WITH_TIMEOUT(window.banner()->text().contains("ps / task 0: " + not_grpc), kWait);
    QVERIFY2(window.banner()->text().contains("HTTP/2"), qPrintable(window.banner()->text()));
    QVERIFY(window.scene()->item(kPs)->toolTip().contains(not_grpc));
    window.detach();
  }

  void attachToAGrpcServerWithoutTheEventStream() {
    // gRPC servers without ClusterLab's event stream: one whose every call is UNIMPLEMENTED,
    // and one that answers TensorFlow's GetStatus as a TensorFlow server does.
    tensorflow::WorkerService::Service nothing;
    TensorFlowLike tensorflow_like;
    int other_port = 0, tf_port = 0;
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &other_port);
    builder.RegisterService(&nothing);
    std::unique_ptr<grpc::Server> other = builder.BuildAndStart();
    grpc::ServerBuilder tf_builder;
    tf_builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &tf_port);
    tf_builder.RegisterService(&tensorflow_like);
    std::unique_ptr<grpc::Server> tf = tf_builder.BuildAndStart();
    QVERIFY(other && other_port > 0 && tf && tf_port > 0);
    MainWindow window(ClabProcess::programPath("clab"));
    window.setProject(TwoTasks("127.0.0.1", other_port, "127.0.0.1", tf_port));
    window.attach();
    const QString not_clusterlab = "not a ClusterLab task: a gRPC server without ClusterLab's event stream";
    const QString tensorflow = "a TensorFlow server: it runs, but has no event stream to watch";
    QTRY_COMPARE_WITH_TIMEOUT(window.scene()->item(kPs)->statusText(), not_clusterlab, kWait);
    QTRY_COMPARE_WITH_TIMEOUT(window.scene()->item(kWorker)->statusText(), tensorflow, kWait);
    QCOMPARE(window.runControl()->conditionOf(kWorker), TaskCondition::kNotWatchable);
    QTRY_VERIFY_WITH_TIMEOUT(window.banner()->text().contains("ps / task 0: " + not_clusterlab), kWait);
    QTRY_VERIFY_WITH_TIMEOUT(window.banner()->text().contains("worker / task 0: " + tensorflow), kWait);
    QVERIFY2(window.banner()->text().contains("UNIMPLEMENTED"), qPrintable(window.banner()->text()));
    window.detach();
    other->Shutdown();
    tf->Shutdown();
  }

  void runOfATaskMeantForAnotherHost() {
    MainWindow window(ClabProcess::programPath("clab"));
    window.show();
    // 192.0.2.0/24 is for documentation: never this machine.
    window.setProject(TwoTasks("127.0.0.1", 2223, "192.0.2.7", 2222));
    QString error;
    QVERIFY(!window.runProject(&error));
    QVERIFY(!window.isRunning());
    QCOMPARE(window.scene()->item(kWorker)->statusText(), QString("not run: 192.0.2.7 is not this machine"));
    QCOMPARE(window.scene()->item(kWorker)->light(), ConditionColor(TaskCondition::kFailed));
    QCOMPARE(window.scene()->item(kPs)->statusText(), QString("not running"));
    QVERIFY2(window.banner()->text().startsWith("Cannot run: some tasks are meant for other hosts "
                                                "(worker / task 0 on 192.0.2.7), and Run starts every task on "
                                                "this machine. Use Run on hosts"),
             qPrintable(window.banner()->text()));
    QVERIFY(window.banner()->isVisible());
    QCOMPARE(window.banner()->actionText(), QString("Run here on 127.0.0.1"));
    QVERIFY(error.contains("192.0.2.7"));
    // The banner's button runs the whole cluster here anyway.
    QTest::mouseClick(window.banner()->findChild<QPushButton*>("notice-action"), Qt::LeftButton);
    QVERIFY(window.isRunning());
    QVERIFY(!window.banner()->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(window.scene()->item(kWorker)->statusText() != "not run: 192.0.2.7 is not this machine",
                             kWait);
    window.stopRun();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isRunning(), kWait);
  }

  void refusedRunSaysWhy() {
    MainWindow window(ClabProcess::programPath("clab"));
    window.show();
    Project project = Project::seed();
    project.tasks = {{"worker", 0, "127.0.0.1", 2222}};  // no ps
    window.setProject(project);
    QVERIFY(!window.runProject());
    QVERIFY2(window.banner()->text().startsWith("Cannot run: the cluster has problems:"),
             qPrintable(window.banner()->text()));
    QVERIFY(window.banner()->text().contains("no ps job"));
    QVERIFY(window.banner()->isVisible());
    QVERIFY(window.banner()->actionText().isEmpty());
  }
};

QTEST_MAIN(StudioFeedbackTest)
#include "tst_studio_feedback.moc"
