// The rendezvous: key format, both orders of Send and Recv, and aborts.
#include "clab/runtime/Rendezvous.h"

#include <QtTest>

#include <atomic>
#include <thread>
#include <vector>

using namespace clab;

namespace {

const char* kPs = "/job:ps/replica:0/task:0/device:CPU:0";
const char* kWorker = "/job:worker/replica:0/task:1/device:CPU:0";

std::string Key(const std::string& tensor) {
  return RendezvousKey{kPs, 0x5a1d7e0c3b2f9e11ULL, kWorker, tensor}.ToString();
}

}  // namespace

class TestRendezvous : public QObject {
  Q_OBJECT

 private slots:
  void keyToString();
  void keyRoundTrip_data();
  void keyRoundTrip();
  void keyRejectsMalformed_data();
  void keyRejectsMalformed();
  void sendBeforeRecv();
  void recvBeforeSend();
  void recvFromAnotherThread();
  void duplicateSendAborts();
  void abortFailsPendingAndLaterCalls();
  void firstAbortWins();
  void abortListenersHearTheFirstAbortOnce();
};

void TestRendezvous::keyToString() {
  QCOMPARE(QString::fromStdString(Key("edge_12_dense/kernel/read:0")),
           QString("/job:ps/replica:0/task:0/device:CPU:0;5a1d7e0c3b2f9e11;"
                   "/job:worker/replica:0/task:1/device:CPU:0;edge_12_dense/kernel/read:0;0:0"));
  // Incarnations are always 16 hex digits, so keys line up in logs.
  const std::string small = RendezvousKey{kPs, 0x2a, kWorker, "t"}.ToString();
  QVERIFY(small.find(";000000000000002a;") != std::string::npos);
}

void TestRendezvous::keyRoundTrip_data() {
  // clang-format off
  QTest::addColumn<quint64>("incarnation");
  QTest::addColumn<QString>("tensor");
  QTest::newRow("typical") << quint64(0x5a1d7e0c3b2f9e11ULL) << "edge_3_x:0";
  QTest::newRow("zero") << quint64(0) << "edge_0_y:1";
  QTest::newRow("all bits") << quint64(~0ULL) << "^control";
  // clang-format on
}

void TestRendezvous::keyRoundTrip() {
  QFETCH(quint64, incarnation);
  QFETCH(QString, tensor);
  const RendezvousKey key{kPs, incarnation, kWorker, tensor.toStdString()};
  auto parsed = RendezvousKey::Parse(key.ToString());
  QVERIFY2(parsed.ok(), FormatStatus(parsed.status()).c_str());
  QCOMPARE(parsed->send_device, key.send_device);
  QCOMPARE(parsed->send_incarnation, key.send_incarnation);
  QCOMPARE(parsed->recv_device, key.recv_device);
  QCOMPARE(parsed->tensor_name, key.tensor_name);
}

void TestRendezvous::keyRejectsMalformed_data() {
  // clang-format off
  QTest::addColumn<QString>("key");
  const QString ps = kPs, worker = kWorker;
  QTest::newRow("empty") << "";
  QTest::newRow("four parts") << ps + ";1;" + worker + ";t";
  QTest::newRow("six parts") << ps + ";1;" + worker + ";t;0:0;x";
  QTest::newRow("partial send device") << "/job:ps;1;" + worker + ";t;0:0";
  QTest::newRow("partial recv device") << ps + ";1;/cpu:0;t;0:0";
  QTest::newRow("incarnation not hex") << ps + ";xyz;" + worker + ";t;0:0";
  QTest::newRow("incarnation too long") << ps + ";12345678901234567;" + worker + ";t;0:0";
  QTest::newRow("empty tensor name") << ps + ";1;" + worker + ";;0:0";
  QTest::newRow("bad frame") << ps + ";1;" + worker + ";t;0";
  // clang-format on
}

void TestRendezvous::keyRejectsMalformed() {
  QFETCH(QString, key);
  auto parsed = RendezvousKey::Parse(key.toStdString());
  QVERIFY(!parsed.ok());
  QCOMPARE(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  QVERIFY(std::string(parsed.status().message()).find(key.toStdString()) != std::string::npos);
}

void TestRendezvous::sendBeforeRecv() {
  LocalRendezvous rendezvous;
  const Tensor value = Tensor::Vector<float>({1, 2, 3});
  QVERIFY(rendezvous.Send(Key("a"), value).ok());
  Tensor received;
  QVERIFY(rendezvous.Recv(Key("a"), &received).ok());
  // Within a process the bytes are shared, never copied.
  QVERIFY(received.SharesBufferWith(value));
}

void TestRendezvous::recvBeforeSend() {
  LocalRendezvous rendezvous;
  bool called = false;
  Tensor received;
  rendezvous.RecvAsync(Key("b"), [&](const Status& status, const Tensor& value) {
    QVERIFY(status.ok());
    received = value;
    called = true;
  });
  QVERIFY(!called);
  QVERIFY(rendezvous.Send(Key("b"), Tensor::Scalar<int32_t>(7)).ok());
  QVERIFY(called);
  QCOMPARE(received.scalar<int32_t>(), 7);
}

void TestRendezvous::recvFromAnotherThread() {
  LocalRendezvous rendezvous;
  Tensor received;
  Status status = errors::Unknown("nothing was received");
  std::thread receiver([&] { status = rendezvous.Recv(Key("c"), &received); });
  // The receiver waits in the rendezvous before anything is sent.
  const bool waiting = QTest::qWaitFor([&] { return !rendezvous.Idle(); }, 30000);
  const Status sent = rendezvous.Send(Key("c"), Tensor::Scalar<int64_t>(42));
  receiver.join();
  QVERIFY(waiting);
  QVERIFY(sent.ok());
  QVERIFY(status.ok());
  QCOMPARE(received.scalar<int64_t>(), int64_t{42});
}

void TestRendezvous::duplicateSendAborts() {
  LocalRendezvous rendezvous;
  QVERIFY(rendezvous.Send(Key("d"), Tensor::Scalar<float>(1)).ok());
  const Status again = rendezvous.Send(Key("d"), Tensor::Scalar<float>(2));
  QCOMPARE(again.code(), absl::StatusCode::kAborted);
}

void TestRendezvous::abortFailsPendingAndLaterCalls() {
  LocalRendezvous rendezvous;
  Status pending_status;
  rendezvous.RecvAsync(Key("e"), [&](const Status& status, const Tensor&) { pending_status = status; });
  rendezvous.StartAbort(errors::InvalidArgument("MatMul failed"));
  QCOMPARE(pending_status.code(), absl::StatusCode::kInvalidArgument);
  QCOMPARE(std::string(pending_status.message()), std::string("MatMul failed"));

  QCOMPARE(rendezvous.Send(Key("f"), Tensor::Scalar<float>(1)).code(), absl::StatusCode::kInvalidArgument);
  Tensor ignored;
  QCOMPARE(rendezvous.Recv(Key("g"), &ignored).code(), absl::StatusCode::kInvalidArgument);
}

void TestRendezvous::firstAbortWins() {
  LocalRendezvous rendezvous;
  rendezvous.StartAbort(errors::Unavailable("ps went away"));
  rendezvous.StartAbort(errors::Cancelled("echo"));
  Tensor ignored;
  QCOMPARE(rendezvous.Recv(Key("h"), &ignored).code(), absl::StatusCode::kUnavailable);
}

// Waits that are not receives (a queue's) end through abort listeners: each hears the first
// abort once, a removed one never, and one added after the abort is told of it instead.
void TestRendezvous::abortListenersHearTheFirstAbortOnce() {
  LocalRendezvous rendezvous;
  std::vector<Status> heard, removed_heard;
  Status aborted;
  const int kept = rendezvous.AddAbortListener([&](const Status& status) { heard.push_back(status); }, &aborted);
  const int removed =
      rendezvous.AddAbortListener([&](const Status& status) { removed_heard.push_back(status); }, &aborted);
  QVERIFY(aborted.ok());
  QVERIFY(kept >= 0 && removed >= 0 && kept != removed);
  rendezvous.RemoveAbortListener(removed);
  rendezvous.StartAbort(errors::Cancelled("RunGraph of step 3 was cancelled"));
  rendezvous.StartAbort(errors::Unavailable("echo"));
  QCOMPARE(heard.size(), size_t(1));
  QCOMPARE(heard[0].code(), absl::StatusCode::kCancelled);
  QVERIFY(removed_heard.empty());
  // One added after the abort is not kept or called (its caller may hold a lock the listener
  // takes); the abort comes back instead.
  bool called = false;
  QCOMPARE(rendezvous.AddAbortListener([&](const Status&) { called = true; }, &aborted), -1);
  QVERIFY(!called);
  QCOMPARE(aborted.code(), absl::StatusCode::kCancelled);
}

QTEST_APPLESS_MAIN(TestRendezvous)
#include "tst_rendezvous.moc"
