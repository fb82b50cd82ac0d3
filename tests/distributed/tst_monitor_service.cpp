// The event stream of a task (clab.MonitorService): the hub's numbering, history and
// resumption; a server's own events (listening, placement lines from its master, stopping);
// events published by clients; GetTaskInfo; a watch that ends when the server stops.
#include "ServerFixture.h"

#include "clab/monitor.grpc.pb.h"
#include "clab/runtime/Session.h"
#include "distributed/EventHub.h"

#include <grpcpp/grpcpp.h>

#include <QtTest>

#include <future>
#include <thread>

using namespace clab;
using namespace clab::testing;

namespace {

TaskEvent LogEvent(const std::string& text) {
  TaskEvent event;
  event.mutable_log()->set_text(text);
  return event;
}

std::unique_ptr<MonitorService::Stub> Connect(const std::string& target) {
  const std::string address = target.substr(std::string("grpc://").size());
  return MonitorService::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
}

// Reads the stream until `stop` says so (or it ends); the events read.
std::vector<TaskEvent> ReadUntil(grpc::ClientReader<TaskEvent>& reader,
                                 const std::function<bool(const TaskEvent&)>& stop) {
  std::vector<TaskEvent> events;
  TaskEvent event;
  while (reader.Read(&event)) {
    events.push_back(event);
    if (stop(event)) break;
  }
  return events;
}

}  // namespace

class MonitorServiceTest : public QObject {
  Q_OBJECT

 private slots:
  void hubNumbersKeepsAndResumes() {
    EventHub hub("/job:worker/replica:0/task:0", /*capacity=*/3);
    for (int i = 1; i <= 5; ++i) hub.Publish(LogEvent("line " + std::to_string(i)));
    QCOMPARE(hub.last_seq(), int64_t(5));
    // Only the newest three are kept; a watcher from the start gets those.
    std::vector<TaskEvent> all = hub.WaitSince(0, std::chrono::milliseconds(0));
    QCOMPARE(all.size(), size_t(3));
    QCOMPARE(all.front().seq(), int64_t(3));
    QCOMPARE(all.front().log().text(), std::string("line 3"));
    QCOMPARE(all.front().task(), std::string("/job:worker/replica:0/task:0"));
    QCOMPARE(all.front().source(), std::string("server"));
    QVERIFY(all.front().wall_time() > 0);
    // A watcher that saw 4 resumes with 5.
    std::vector<TaskEvent> rest = hub.WaitSince(4, std::chrono::milliseconds(0));
    QCOMPARE(rest.size(), size_t(1));
    QCOMPARE(rest.front().seq(), int64_t(5));
    // Nothing new: the wait times out empty; a publish wakes it.
    QVERIFY(hub.WaitSince(5, std::chrono::milliseconds(20)).empty());
    auto waiter = std::async(std::launch::async, [&] { return hub.WaitSince(5, std::chrono::seconds(10)); });
    QVERIFY(QTest::qWaitFor([&] { return hub.waiting() == 1; }, 30000));
    hub.Publish(LogEvent("line 6"));
    QCOMPARE(waiter.get().size(), size_t(1));
    // Closing wakes waiters at once.
    auto closed = std::async(std::launch::async, [&] { return hub.WaitSince(6, std::chrono::seconds(10)); });
    hub.Close();
    QVERIFY(closed.get().empty());
  }

  void logLinesBecomePlacementOrLog_data() {
    // clang-format off
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("node");  // empty: a plain log line
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("device");
    QTest::newRow("placement") << "MatMul: (MatMul): /job:worker/replica:0/task:0/device:CPU:0"
                               << "MatMul" << "MatMul" << "/job:worker/replica:0/task:0/device:CPU:0";
    QTest::newRow("scoped node") << "w/Assign: (Assign): /job:ps/replica:0/task:0/device:CPU:0"
                                 << "w/Assign" << "Assign" << "/job:ps/replica:0/task:0/device:CPU:0";
    QTest::newRow("plain line") << "Started server with target: grpc://127.0.0.1:2222" << "" << "" << "";
    QTest::newRow("sentence with colons") << "note: (read this): /job:x is not a device line here"
                                          << "" << "" << "";
    // clang-format on
  }
  void logLinesBecomePlacementOrLog() {
    QFETCH(QString, line);
    QFETCH(QString, node);
    QFETCH(QString, op);
    QFETCH(QString, device);
    const TaskEvent event = EventForLogLine(line.toStdString());
    if (node.isEmpty()) {
      QVERIFY(event.has_log());
      QCOMPARE(QString::fromStdString(event.log().text()), line);
      return;
    }
    QVERIFY(event.has_placement());
    QCOMPARE(QString::fromStdString(event.placement().node()), node);
    QCOMPARE(QString::fromStdString(event.placement().op()), op);
    QCOMPARE(QString::fromStdString(event.placement().device()), device);
  }

  void serverStreamsItsEventsAndPublishedOnes() {
    const int ps_port = FreePort();
    const int worker_port = FreePort();
    const auto cluster =
        *ClusterSpec::FromDict({{"ps", {LoopbackAddress(ps_port)}}, {"worker", {LoopbackAddress(worker_port)}}});
    auto ps = StartServer(cluster, "ps", 0);
    auto worker = StartServer(cluster, "worker", 0);
    QVERIFY(ps.ok() && worker.ok());
    auto stub = Connect((*worker)->target());

    grpc::ClientContext info_context;
    TaskInfoResponse info;
    QVERIFY(stub->GetTaskInfo(&info_context, TaskInfoRequest(), &info).ok());
    QCOMPARE(info.task(), std::string("/job:worker/replica:0/task:0"));
    QCOMPARE(info.state().phase(), TaskState::LISTENING);
    QVERIFY(info.devices_size() >= 1);
    QCOMPARE(info.pid(), int64_t(::getpid()));

    // A seed step with placement logging: the master's placement lines become events.
    auto seed = BuildSeedGraph({{"ps", {LoopbackAddress(ps_port)}}, {"worker", {LoopbackAddress(worker_port)}}});
    SessionOptions options;
    options.target = (*worker)->target();
    options.config.set_log_device_placement(true);
    auto session = NewSession(options);
    const Status created = (*session)->Create(seed->graph);
    QVERIFY2(created.ok(), created.ToString().c_str());
    std::vector<Tensor> out;
    const Status initialized = (*session)->Run({}, {}, {seed->init}, &out);
    QVERIFY2(initialized.ok(), initialized.ToString().c_str());
    const Status ran = (*session)->Run({}, {seed->product}, {}, &out);
    QVERIFY2(ran.ok(), ran.ToString().c_str());

    // A client elsewhere publishes a hook line.
    PublishRequest publish;
    TaskEvent hook;
    hook.mutable_hook()->set_hook("LoggingTensorHook");
    hook.mutable_hook()->set_text("loss = 0.25");
    hook.set_source("trainer");
    *publish.add_events() = hook;
    grpc::ClientContext publish_context;
    PublishResponse published;
    QVERIFY(stub->Publish(&publish_context, publish, &published).ok());

    grpc::ClientContext watch_context;
    WatchRequest from_start;
    auto reader = stub->Watch(&watch_context, from_start);
    const std::vector<TaskEvent> events =
        ReadUntil(*reader, [](const TaskEvent& e) { return e.has_hook() && e.hook().hook() == "LoggingTensorHook"; });
    QVERIFY(!events.empty());
    int64_t previous = 0;
    bool listening = false, placed_matmul = false;
    for (const TaskEvent& e : events) {
      QVERIFY(e.seq() > previous);
      previous = e.seq();
      listening |= e.has_state() && e.state().phase() == TaskState::LISTENING;
      placed_matmul |= e.has_placement() && e.placement().node() == "MatMul" &&
                       e.placement().device() == "/job:worker/replica:0/task:0/device:CPU:0";
    }
    QVERIFY(listening);
    QVERIFY(placed_matmul);
    QCOMPARE(events.back().source(), std::string("trainer"));
    QCOMPARE(events.back().hook().text(), std::string("loss = 0.25"));
    watch_context.TryCancel();
    reader->Finish();

    // A watch resumed after the hook line sees what comes next: the server stopping, and
    // then the stream ends by itself.
    grpc::ClientContext resume_context;
    WatchRequest resume;
    resume.set_since_seq(events.back().seq());
    auto resumed = stub->Watch(&resume_context, resume);
    // The watch is set up once it delivers an event published after it began; then the
    // server stops.
    TaskEvent marker;
    marker.mutable_log()->set_text("marker");
    PublishRequest publish_marker;
    *publish_marker.add_events() = marker;
    grpc::ClientContext marker_context;
    QVERIFY(stub->Publish(&marker_context, publish_marker, &published).ok());
    std::vector<TaskEvent> tail =
        ReadUntil(*resumed, [](const TaskEvent& e) { return e.has_log() && e.log().text() == "marker"; });
    QVERIFY(!tail.empty() && tail.back().log().text() == "marker");
    auto stopper = std::async(std::launch::async, [&] { return (*worker)->Stop(); });
    const std::vector<TaskEvent> rest = ReadUntil(*resumed, [](const TaskEvent&) { return false; });
    tail.insert(tail.end(), rest.begin(), rest.end());
    QVERIFY(resumed->Finish().ok());
    QVERIFY(stopper.get().ok());
    QVERIFY(!tail.empty());
    QCOMPARE(tail.front().seq(), events.back().seq() + 1);
    QCOMPARE(tail.back().state().phase(), TaskState::STOPPED);
  }
};

QTEST_GUILESS_MAIN(MonitorServiceTest)
#include "tst_monitor_service.moc"
