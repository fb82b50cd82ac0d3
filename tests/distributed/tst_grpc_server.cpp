// clab::Server: what a misconfigured task is told, and a shutdown that really shuts down.
#include "ServerFixture.h"

#include "clab/runtime/Session.h"

#include <QtTest>

#include <future>

using namespace clab;
using namespace clab::testing;

Q_DECLARE_METATYPE(absl::StatusCode)

class GrpcServerTest : public QObject {
  Q_OBJECT

 private slots:
  void rejectsBadOptions_data();
  void rejectsBadOptions();
  void targetNamesTheBoundPort();
  void portInUseNamesAddressAndTask();
  void stopMakesJoinReturnAndFreesThePort();
  void startAfterStopFails();
  void sessionOnStoppedServerFails();

 private:
  static ClusterSpec Cluster(int ps_port, int worker_port) {
    return *ClusterSpec::FromDict({{"ps", {LoopbackAddress(ps_port)}}, {"worker", {LoopbackAddress(worker_port)}}});
  }
};

void GrpcServerTest::rejectsBadOptions_data() {
  // clang-format off
  QTest::addColumn<QString>("job");
  QTest::addColumn<int>("task");
  QTest::addColumn<QString>("protocol");
  QTest::addColumn<absl::StatusCode>("code");
  QTest::addColumn<QString>("culprit");
  QTest::newRow("unknown job") << "chief" << 0 << "grpc" << absl::StatusCode::kInvalidArgument << "ps, worker";
  QTest::newRow("task out of range") << "worker" << 3 << "grpc" << absl::StatusCode::kInvalidArgument
                                     << "Task 3 was not defined in job \"worker\"";
  QTest::newRow("verbs") << "worker" << 0 << "grpc+verbs" << absl::StatusCode::kUnimplemented << "grpc+verbs";
  QTest::newRow("mpi") << "worker" << 0 << "grpc+mpi" << absl::StatusCode::kUnimplemented << "grpc+mpi";
  QTest::newRow("unknown protocol") << "worker" << 0 << "http" << absl::StatusCode::kNotFound << "grpc";
  QTest::newRow("no job, two jobs") << "" << 0 << "grpc" << absl::StatusCode::kInvalidArgument << "job_name";
  // clang-format on
}

void GrpcServerTest::rejectsBadOptions() {
  QFETCH(QString, job);
  QFETCH(int, task);
  QFETCH(QString, protocol);
  QFETCH(absl::StatusCode, code);
  QFETCH(QString, culprit);
  ServerOptions options;
  options.cluster = Cluster(FreePort(), FreePort());
  options.job_name = job.toStdString();
  options.task_index = task;
  options.protocol = protocol.toStdString();
  auto server = Server::Create(options);
  QVERIFY(!server.ok());
  QCOMPARE(server.status().code(), code);
  const QString message = QString::fromStdString(std::string(server.status().message()));
  QVERIFY2(message.contains(culprit), qPrintable(message));
}

void GrpcServerTest::targetNamesTheBoundPort() {
  const int port = FreePort();
  auto server = StartServer(Cluster(port, FreePort()), "ps", 0);
  QVERIFY2(server.ok(), server.status().ToString().c_str());
  QCOMPARE((*server)->bound_port(), port);
  QCOMPARE((*server)->target(), "grpc://" + LoopbackAddress(port));
  QCOMPARE((*server)->task_name(), std::string("/job:ps/replica:0/task:0"));
}

void GrpcServerTest::portInUseNamesAddressAndTask() {
  const int port = FreePort();
  const ClusterSpec cluster = Cluster(port, FreePort());
  auto first = StartServer(cluster, "ps", 0);
  QVERIFY2(first.ok(), first.status().ToString().c_str());
  auto second = StartServer(cluster, "ps", 0);
  QVERIFY(!second.ok());
  QCOMPARE(second.status().code(), absl::StatusCode::kUnavailable);
  const std::string message(second.status().message());
  QVERIFY2(message.find(LoopbackAddress(port)) != std::string::npos, message.c_str());
  QVERIFY2(message.find("/job:ps/replica:0/task:0") != std::string::npos, message.c_str());
  QVERIFY2(message.find("already in use") != std::string::npos, message.c_str());
}

void GrpcServerTest::stopMakesJoinReturnAndFreesThePort() {
  const int port = FreePort();
  const ClusterSpec cluster = Cluster(port, FreePort());
  auto server = StartServer(cluster, "ps", 0);
  QVERIFY2(server.ok(), server.status().ToString().c_str());
  GrpcServer* raw = server->get();
  auto joined = std::async(std::launch::async, [raw] { return raw->Join(); });
  QVERIFY(joined.wait_for(std::chrono::milliseconds(200)) == std::future_status::timeout);
  QVERIFY(raw->Stop().ok());
  QVERIFY(joined.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  QVERIFY(joined.get().ok());
  // The port is free again: a new server for the task starts there.
  auto again = StartServer(cluster, "ps", 0);
  QVERIFY2(again.ok(), again.status().ToString().c_str());
}

void GrpcServerTest::startAfterStopFails() {
  auto server = StartServer(Cluster(FreePort(), FreePort()), "ps", 0);
  QVERIFY(server.ok());
  QVERIFY((*server)->Start().ok());  // a second Start is harmless
  QVERIFY((*server)->Stop().ok());
  QVERIFY((*server)->Stop().ok());
  QCOMPARE((*server)->Start().code(), absl::StatusCode::kFailedPrecondition);
}

void GrpcServerTest::sessionOnStoppedServerFails() {
  const int port = FreePort();
  auto server = StartServer(Cluster(FreePort(), port), "worker", 0);
  QVERIFY(server.ok());
  const std::string target = (*server)->target();
  QVERIFY((*server)->Stop().ok());
  SessionOptions options;
  options.target = target;
  auto session = NewSession(options);
  QVERIFY2(session.ok(), session.status().ToString().c_str());
  const Status created = (*session)->Create(tensorflow::GraphDef());
  QCOMPARE(created.code(), absl::StatusCode::kUnavailable);
  QVERIFY2(std::string(created.message()).find(LoopbackAddress(port)) != std::string::npos,
           std::string(created.message()).c_str());
}

QTEST_APPLESS_MAIN(GrpcServerTest)
#include "tst_grpc_server.moc"
