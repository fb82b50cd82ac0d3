// The in-process session, as a user of TensorFlow's Session sees it: the seed program's
// graph, TensorFlow's errors and their wording, state across runs, feeds, targets, two
// devices talking through Send/Recv, the signature cache, Close, and the placement log.
#include "clab/graph/GraphBuilder.h"
#include "clab/graph/OpRegistry.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Device.h"
#include "clab/runtime/DirectSession.h"
#include "clab/runtime/OpKernel.h"
#include "clab/runtime/Session.h"
#include "clab/runtime/ThreadPool.h"

#include <QtTest>

#include <unistd.h>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

using namespace clab;

namespace {

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kCpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";

std::atomic<int> g_kernel_constructions{0};

// A second host device, as another device type's factory would add it.
class FakeCpuDevice : public Device {
 public:
  explicit FakeCpuDevice(std::string name) : Device(std::move(name), "CPU", "fake CPU for tests") {}
  Allocator* allocator() override { return CpuAllocator(); }
  const Eigen::ThreadPoolDevice* eigen_cpu_device() const override { return ThreadPool::Default()->eigen_device(); }
};

class PassThroughKernel : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, ctx->input(0)); }
};

void RegisterTestOpsAndDevices() {
  OpRegistry::Global()
      .Register("TestCountConstruct")
      .Input("in: float")
      .Output("out: float")
      .Kernel("CPU", [](OpKernelConstruction&) -> StatusOr<std::unique_ptr<OpKernel>> {
        ++g_kernel_constructions;
        return std::unique_ptr<OpKernel>(std::make_unique<PassThroughKernel>());
      });
  // Only sessions that ask for it by count get the fake device.
  RegisterDeviceFactory("FAKE",
                        [](const std::string& task_prefix,
                           const tensorflow::ConfigProto& config) -> StatusOr<std::vector<std::unique_ptr<Device>>> {
                          std::vector<std::unique_ptr<Device>> devices;
                          auto count = config.device_count().find("FAKE");
                          if (count != config.device_count().end() && count->second > 0)
                            devices.push_back(std::make_unique<FakeCpuDevice>(task_prefix + "/device:CPU:1"));
                          return devices;
                        });
}

// The seed program: x = [[1,2,3,4]], w = Variable([[2],[2],[2],[2]]), MatMul(x, w).
tensorflow::GraphDef SeedGraph(const std::string& variable_device = "", const std::string& matmul_device = "") {
  GraphBuilder g;
  Output x = ops::Const(g, Tensor::Matrix<int32_t>({{1, 2, 3, 4}}), "x");
  ops::Variable w;
  {
    auto scope = g.WithDevice(variable_device);
    w = ops::MakeVariable(g, ops::Const(g, Tensor::Matrix<int32_t>({{2}, {2}, {2}, {2}}), "w_init"), "w");
  }
  {
    auto scope = g.WithDevice(matmul_device);
    ops::MatMul(g, x, w.read, false, false, "MatMul");
  }
  ops::GlobalVariablesInitializer(g, "init");
  if (!g.status().ok()) qFatal("%s", FormatStatus(g.status()).c_str());
  return g.graph_def();
}

tensorflow::GraphDef CounterGraph() {
  GraphBuilder g;
  ops::Variable counter = ops::MakeVariable(g, ops::Const(g, Tensor::Scalar<int32_t>(0)), "counter");
  ops::AssignAdd(g, counter.var, ops::Const(g, Tensor::Scalar<int32_t>(1), "one"), "inc");
  ops::GlobalVariablesInitializer(g, "init");
  if (!g.status().ok()) qFatal("%s", FormatStatus(g.status()).c_str());
  return g.graph_def();
}

std::unique_ptr<Session> OpenSession(const tensorflow::GraphDef& graph, const tensorflow::ConfigProto& config = {}) {
  SessionOptions options;
  options.config = config;
  auto session = NewSession(options);
  if (!session.ok()) qFatal("%s", FormatStatus(session.status()).c_str());
  const Status created = (*session)->Create(graph);
  if (!created.ok()) qFatal("%s", FormatStatus(created).c_str());
  return std::move(session).value();
}

bool Contains(const Status& status, const std::string& text) {
  return std::string(status.message()).find(text) != std::string::npos;
}

int Occurrences(const std::string& haystack, const std::string& needle) {
  int count = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++count;
  return count;
}

// Redirects the process's stdout (fd 1) into a file while alive, as TensorFlow's
// placement log goes to stdout.
class StdoutCapture {
 public:
  StdoutCapture() {
    std::fflush(stdout);
    char path[] = "/tmp/clab_stdout_XXXXXX";
    file_ = mkstemp(path);
    path_ = path;
    saved_ = dup(1);
    dup2(file_, 1);
  }
  std::string Finish() {
    std::fflush(stdout);
    dup2(saved_, 1);
    close(saved_);
    close(file_);
    std::ifstream in(path_);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(path_.c_str());
    return text.str();
  }

 private:
  int file_ = -1;
  int saved_ = -1;
  std::string path_;
};

}  // namespace

class TestDirectSession : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void seedGraphComputes20();
  void uninitializedVariableIsNamed();
  void matmulShapeMismatchNamesNodeAndShapes();
  void unknownNamesAreNotFound_data();
  void unknownNamesAreNotFound();
  void variablesKeepValuesAcrossRuns();
  void feedsOverrideTensors();
  void targetsRunWithoutFetches();
  void twoDevicesExchangeTensors();
  void signatureIsCompiledOnce();
  void concurrentRunsShareVariables();
  void closedSessionRefusesWork();
  void runBeforeCreateFails();
  void extendAddsNodesAndRejectsDuplicates();
  void logDevicePlacementPrintsOnce();
  void newSessionTargets();
  void listDevices();
};

void TestDirectSession::initTestCase() { RegisterTestOpsAndDevices(); }

void TestDirectSession::seedGraphComputes20() {
  auto session = OpenSession(SeedGraph());
  std::vector<Tensor> out;
  QVERIFY(session->Run({}, {}, {"init"}, &out).ok());
  QVERIFY(out.empty());
  for (int step = 0; step < 3; ++step) {
    const Status status = session->Run({}, {"MatMul:0"}, {}, &out);
    QVERIFY2(status.ok(), FormatStatus(status).c_str());
    QCOMPARE(out.size(), size_t{1});
    QCOMPARE(out[0].DebugString(), std::string("[[20]]"));
    QCOMPARE(out[0].dtype(), DT_INT32);
  }
}

void TestDirectSession::uninitializedVariableIsNamed() {
  auto session = OpenSession(SeedGraph());
  std::vector<Tensor> out;
  const Status status = session->Run({}, {"MatMul"}, {}, &out);
  QCOMPARE(status.code(), absl::StatusCode::kFailedPrecondition);
  QVERIFY2(Contains(status, "Attempting to use uninitialized value w"), FormatStatus(status).c_str());
}

void TestDirectSession::matmulShapeMismatchNamesNodeAndShapes() {
  GraphBuilder g;
  Output a = ops::Placeholder(g, DT_INT32, PartialShape::Unknown(), "a");
  Output b = ops::Placeholder(g, DT_INT32, PartialShape::Unknown(), "b");
  ops::MatMul(g, a, b, false, false, "MatMul");
  QVERIFY(g.status().ok());
  auto session = OpenSession(g.graph_def());
  std::vector<Tensor> out;
  const Status status =
      session->Run({{"a", Tensor::Matrix<int32_t>({{1, 2, 3, 4}})}, {"b", Tensor::Matrix<int32_t>({{1}, {2}, {3}})}},
                   {"MatMul"}, {}, &out);
  QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
  QVERIFY2(Contains(status, "MatMul"), FormatStatus(status).c_str());
  QVERIFY2(Contains(status, "[1,4]"), FormatStatus(status).c_str());
  QVERIFY2(Contains(status, "[3,1]"), FormatStatus(status).c_str());
}

void TestDirectSession::unknownNamesAreNotFound_data() {
  // clang-format off
  QTest::addColumn<QString>("feed");
  QTest::addColumn<QString>("fetch");
  QTest::addColumn<QString>("target");
  QTest::addColumn<QString>("named");
  QTest::newRow("fetch") << "" << "nope:0" << "" << "nope";
  QTest::newRow("fetch without index") << "" << "nope" << "" << "nope";
  QTest::newRow("fetch output out of range") << "" << "x:5" << "" << "x:5";
  QTest::newRow("feed") << "missing:0" << "MatMul" << "" << "missing";
  QTest::newRow("target") << "" << "" << "no_such_op" << "no_such_op";
  // clang-format on
}

void TestDirectSession::unknownNamesAreNotFound() {
  QFETCH(QString, feed);
  QFETCH(QString, fetch);
  QFETCH(QString, target);
  QFETCH(QString, named);
  auto session = OpenSession(SeedGraph());
  FeedList feeds;
  if (!feed.isEmpty()) feeds.push_back({feed.toStdString(), Tensor::Scalar<int32_t>(1)});
  std::vector<std::string> fetches, targets;
  if (!fetch.isEmpty()) fetches.push_back(fetch.toStdString());
  if (!target.isEmpty()) targets.push_back(target.toStdString());
  std::vector<Tensor> out;
  const Status status = session->Run(feeds, fetches, targets, &out);
  QCOMPARE(status.code(), absl::StatusCode::kNotFound);
  QVERIFY2(Contains(status, named.toStdString()), FormatStatus(status).c_str());
  QVERIFY2(Contains(status, "not in the graph"), FormatStatus(status).c_str());
}

void TestDirectSession::variablesKeepValuesAcrossRuns() {
  auto session = OpenSession(CounterGraph());
  std::vector<Tensor> out;
  QVERIFY(session->Run({}, {}, {"init"}, &out).ok());
  for (int expected = 1; expected <= 3; ++expected) {
    const Status status = session->Run({}, {"inc:0"}, {}, &out);
    QVERIFY2(status.ok(), FormatStatus(status).c_str());
    QCOMPARE(out[0].scalar<int32_t>(), expected);
  }
  // Another signature sees the same variable.
  QVERIFY(session->Run({}, {"counter/read:0"}, {}, &out).ok());
  QCOMPARE(out[0].scalar<int32_t>(), 3);
  // Re-initialising resets it.
  QVERIFY(session->Run({}, {}, {"init"}, &out).ok());
  QVERIFY(session->Run({}, {"counter"}, {}, &out).ok());
  QCOMPARE(out[0].scalar<int32_t>(), 0);
}

void TestDirectSession::feedsOverrideTensors() {
  auto session = OpenSession(SeedGraph());
  std::vector<Tensor> out;
  // Feeding the variable's snapshot cuts the variable out: no initialisation needed.
  Status status = session->Run({{"w/read:0", Tensor::Matrix<int32_t>({{1}, {1}, {1}, {1}})}}, {"MatMul"}, {}, &out);
  QVERIFY2(status.ok(), FormatStatus(status).c_str());
  QCOMPARE(out[0].DebugString(), std::string("[[10]]"));

  QVERIFY(session->Run({}, {}, {"init"}, &out).ok());
  status = session->Run({{"x", Tensor::Matrix<int32_t>({{1, 1, 1, 1}})}}, {"MatMul"}, {}, &out);
  QVERIFY2(status.ok(), FormatStatus(status).c_str());
  QCOMPARE(out[0].DebugString(), std::string("[[8]]"));
  // A fed tensor can be fetched too; it comes back as fed.
  const Tensor fed = Tensor::Matrix<int32_t>({{0, 0, 0, 1}});
  QVERIFY(session->Run({{"x:0", fed}}, {"MatMul", "x:0"}, {}, &out).ok());
  QCOMPARE(out[0].DebugString(), std::string("[[2]]"));
  QVERIFY(out[1].Equals(fed));
}

void TestDirectSession::targetsRunWithoutFetches() {
  auto session = OpenSession(CounterGraph());
  std::vector<Tensor> out;
  QVERIFY(session->Run({}, {}, {"init"}, &out).ok());
  for (int i = 0; i < 5; ++i) {
    QVERIFY(session->Run({}, {}, {"inc"}, &out).ok());
    QVERIFY(out.empty());
  }
  QVERIFY(session->Run({}, {"counter/read"}, {}, &out).ok());
  QCOMPARE(out[0].scalar<int32_t>(), 5);
}

void TestDirectSession::twoDevicesExchangeTensors() {
  tensorflow::ConfigProto config;
  (*config.mutable_device_count())["FAKE"] = 1;
  auto session = OpenSession(SeedGraph("/device:CPU:1", "/device:CPU:0"), config);
  std::vector<tensorflow::DeviceAttributes> devices;
  QVERIFY(session->ListDevices(&devices).ok());
  QCOMPARE(devices.size(), size_t{2});
  QCOMPARE(devices[1].name(), kCpu1);

  std::vector<Tensor> out;
  QVERIFY(session->Run({}, {}, {"init"}, &out).ok());
  tensorflow::RunOptions options;
  options.set_trace_level(tensorflow::RunOptions::FULL_TRACE);
  options.set_output_partition_graphs(true);
  for (int step = 0; step < 20; ++step) {
    tensorflow::RunMetadata metadata;
    const Status status = session->Run(options, {}, {"MatMul"}, {}, &out, &metadata);
    QVERIFY2(status.ok(), FormatStatus(status).c_str());
    QCOMPARE(out[0].DebugString(), std::string("[[20]]"));
    QCOMPARE(metadata.partition_graphs_size(), 2);
    QCOMPARE(metadata.step_stats().dev_stats_size(), 2);
    int sends = 0, recvs = 0;
    for (const auto& graph : metadata.partition_graphs()) {
      for (const auto& node : graph.node()) {
        sends += node.op() == "_Send";
        recvs += node.op() == "_Recv";
      }
    }
    QCOMPARE(sends, 1);
    QCOMPARE(recvs, 1);
    bool labelled = false;
    for (const auto& device : metadata.step_stats().dev_stats())
      for (const auto& node : device.node_stats())
        labelled |= node.timeline_label().find("_Recv(edge_") != std::string::npos;
    QVERIFY(labelled);
  }
}

void TestDirectSession::signatureIsCompiledOnce() {
  GraphBuilder g;
  Output p = ops::Placeholder(g, DT_FLOAT, PartialShape::Unknown(), "p");
  Output q = ops::Placeholder(g, DT_FLOAT, PartialShape::Unknown(), "q");
  Output diff = ops::Sub(g, p, q, "diff");
  g.AddNode("TestCountConstruct", {diff}, {}, "counted");
  QVERIFY2(g.status().ok(), FormatStatus(g.status()).c_str());
  auto session = OpenSession(g.graph_def());
  g_kernel_constructions = 0;
  std::vector<Tensor> out;
  for (int i = 0; i < 3; ++i) {
    QVERIFY(
        session->Run({{"p", Tensor::Scalar<float>(5)}, {"q", Tensor::Scalar<float>(2)}}, {"counted"}, {}, &out).ok());
    QCOMPARE(out[0].scalar<float>(), 3.0f);
  }
  QCOMPARE(g_kernel_constructions.load(), 1);
  // The same feeds in another order are the same signature, and still go to the right place.
  QVERIFY(session->Run({{"q", Tensor::Scalar<float>(1)}, {"p", Tensor::Scalar<float>(7)}}, {"counted"}, {}, &out).ok());
  QCOMPARE(out[0].scalar<float>(), 6.0f);
  QCOMPARE(g_kernel_constructions.load(), 1);
  // A new fetch list is a new signature.
  QVERIFY(
      session->Run({{"p", Tensor::Scalar<float>(1)}, {"q", Tensor::Scalar<float>(1)}}, {"counted", "diff"}, {}, &out)
          .ok());
  QCOMPARE(g_kernel_constructions.load(), 2);
  // The same fetches in another order are the same signature; outputs come in the order asked.
  QVERIFY(session->Run({{"p", Tensor::Scalar<float>(5)}, {"q", Tensor::Scalar<float>(2)}}, {"counted", "p"}, {}, &out)
              .ok());
  QCOMPARE(g_kernel_constructions.load(), 3);
  QCOMPARE(out[0].scalar<float>(), 3.0f);
  QCOMPARE(out[1].scalar<float>(), 5.0f);
  QVERIFY(session->Run({{"p", Tensor::Scalar<float>(5)}, {"q", Tensor::Scalar<float>(2)}}, {"p", "counted"}, {}, &out)
              .ok());
  QCOMPARE(g_kernel_constructions.load(), 3);
  QCOMPARE(out[0].scalar<float>(), 5.0f);
  QCOMPARE(out[1].scalar<float>(), 3.0f);
}

void TestDirectSession::concurrentRunsShareVariables() {
  auto session = OpenSession(CounterGraph());
  std::vector<Tensor> out;
  QVERIFY(session->Run({}, {}, {"init"}, &out).ok());
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      std::vector<Tensor> mine;
      for (int i = 0; i < 25; ++i)
        if (!session->Run({}, {}, {"inc"}, &mine).ok()) ++failures;
    });
  }
  for (auto& thread : threads) thread.join();
  QCOMPARE(failures.load(), 0);
  QVERIFY(session->Run({}, {"counter/read"}, {}, &out).ok());
  // AssignAdd defaults to use_locking=false, as in TensorFlow, so racing increments may
  // be lost; none may be invented.
  QVERIFY(out[0].scalar<int32_t>() >= 1 && out[0].scalar<int32_t>() <= 100);
}

void TestDirectSession::closedSessionRefusesWork() {
  auto session = OpenSession(SeedGraph());
  std::vector<Tensor> out;
  QVERIFY(session->Close().ok());
  const Status status = session->Run({}, {"x"}, {}, &out);
  QCOMPARE(status.code(), absl::StatusCode::kFailedPrecondition);
  QCOMPARE(std::string(status.message()), std::string("Session is closed."));
  QCOMPARE(session->Extend(tensorflow::GraphDef()).code(), absl::StatusCode::kFailedPrecondition);
}

void TestDirectSession::runBeforeCreateFails() {
  auto session = NewSession(SessionOptions());
  QVERIFY(session.ok());
  std::vector<Tensor> out;
  QCOMPARE((*session)->Run({}, {"x"}, {}, &out).code(), absl::StatusCode::kFailedPrecondition);
}

void TestDirectSession::extendAddsNodesAndRejectsDuplicates() {
  auto session = OpenSession(SeedGraph());
  std::vector<Tensor> out;
  QVERIFY(session->Run({}, {}, {"init"}, &out).ok());
  QVERIFY(session->Run({}, {"MatMul"}, {}, &out).ok());

  tensorflow::GraphDef duplicate;
  auto* again = duplicate.add_node();
  again->set_name("x");
  again->set_op("NoOp");
  const Status rejected = session->Extend(duplicate);
  QCOMPARE(rejected.code(), absl::StatusCode::kInvalidArgument);
  QVERIFY(Contains(rejected, "'x'"));

  tensorflow::GraphDef addition;
  auto* doubled = addition.add_node();
  doubled->set_name("doubled");
  doubled->set_op("AddV2");
  doubled->add_input("MatMul");
  doubled->add_input("MatMul");
  (*doubled->mutable_attr())["T"].set_type(DT_INT32);
  const Status extended = session->Extend(addition);
  QVERIFY2(extended.ok(), FormatStatus(extended).c_str());
  QVERIFY(session->Run({}, {"doubled", "MatMul"}, {}, &out).ok());
  QCOMPARE(out[0].DebugString(), std::string("[[40]]"));
  QCOMPARE(out[1].DebugString(), std::string("[[20]]"));
  // Variables kept their values through the extension.
}

void TestDirectSession::logDevicePlacementPrintsOnce() {
  tensorflow::ConfigProto config;
  config.set_log_device_placement(true);
  StdoutCapture capture;
  auto session = OpenSession(SeedGraph(), config);
  std::vector<Tensor> out;
  const Status init = session->Run({}, {}, {"init"}, &out);
  const Status run = session->Run({}, {"MatMul"}, {}, &out);
  const std::string printed = capture.Finish();
  QVERIFY(init.ok());
  QVERIFY(run.ok());
  QVERIFY2(printed.rfind("Device mapping: no known devices.\n", 0) == 0, printed.c_str());
  QCOMPARE(Occurrences(printed, "MatMul: (MatMul): " + kCpu0 + "\n"), 1);
  // "w" is placed for both signatures, printed once.
  QCOMPARE(Occurrences(printed, "w: (VariableV2): " + kCpu0 + "\n"), 1);

  tensorflow::ConfigProto two;
  two.set_log_device_placement(true);
  (*two.mutable_device_count())["FAKE"] = 1;
  StdoutCapture second;
  auto other = OpenSession(SeedGraph(), two);
  const std::string mapping = second.Finish();
  QVERIFY2(mapping.find("Device mapping:\n" + kCpu1 + " -> fake CPU for tests\n") != std::string::npos,
           mapping.c_str());
}

void TestDirectSession::newSessionTargets() {
  SessionOptions options;
  QVERIFY(NewSession(options).ok());
  options.target = "local";
  QVERIFY(NewSession(options).ok());
  // A scheme nobody registered ("grpc" is registered by the distributed runtime).
  options.target = "mpi://localhost:2222";
  auto remote = NewSession(options);
  QCOMPARE(remote.status().code(), absl::StatusCode::kUnimplemented);
  QVERIFY(Contains(remote.status(), "mpi://localhost:2222"));
}

void TestDirectSession::listDevices() {
  auto session = OpenSession(SeedGraph());
  std::vector<tensorflow::DeviceAttributes> devices;
  QVERIFY(session->ListDevices(&devices).ok());
  QVERIFY(!devices.empty());
  QCOMPARE(devices[0].name(), kCpu0);
  QCOMPARE(devices[0].device_type(), std::string("CPU"));
  QVERIFY(devices[0].incarnation() != 0);
  // Incarnations are per device instance: a new session's CPU is a new incarnation.
  auto again = OpenSession(SeedGraph());
  std::vector<tensorflow::DeviceAttributes> other;
  QVERIFY(again->ListDevices(&other).ok());
  QVERIFY(other[0].incarnation() != devices[0].incarnation());
}

QTEST_APPLESS_MAIN(TestDirectSession)
#include "tst_direct_session.moc"
