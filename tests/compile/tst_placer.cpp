// The placer: explicit and partial requests, device functions and replica_device_setter,
// colocation, soft placement, GPU preference, the log line format and error wording.
#include "clab/compile/Placer.h"
#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/OpKernel.h"

#include <google/protobuf/text_format.h>

#include <QtTest>

// Options are written with designated initializers naming only what differs from the
// defaults; GCC 12 warns about every field left out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

using namespace clab;

namespace {

std::vector<AvailableDevice> Devices(const QStringList& names) {
  std::vector<AvailableDevice> devices;
  for (const QString& name : names) {
    const QString type = name.section(':', -2, -2);  // ".../device:GPU:0" -> "GPU"
    devices.push_back({name.toStdString(), type.toStdString()});
  }
  return devices;
}

const QStringList kThreeTasks = {"/job:worker/replica:0/task:0/device:CPU:0",
                                 "/job:worker/replica:0/task:1/device:CPU:0", "/job:ps/replica:0/task:0/device:CPU:0"};
const QStringList kLocalWithGpu = {"/job:localhost/replica:0/task:0/device:CPU:0",
                                   "/job:localhost/replica:0/task:0/device:GPU:0"};

tensorflow::GraphDef ParseGraph(const std::string& text) {
  tensorflow::GraphDef graph;
  if (!google::protobuf::TextFormat::ParseFromString(text, &graph)) qFatal("bad test graph");
  return graph;
}

// A registry with ops whose kernels differ by device type, for GPU preference and soft
// placement without a GPU in the machine.
const OpRegistry& TestRegistry() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    KernelFactory never = [](OpKernelConstruction&) -> StatusOr<std::unique_ptr<OpKernel>> {
      return errors::Unimplemented("placement tests build no kernels");
    };
    r->Register("Both")
        .Input("in: N * float")
        .Output("out: float")
        .Attr("N: int >= 0 = 0")
        .Kernel("CPU", never)
        .Kernel("GPU", never);
    r->Register("CpuOnly").Input("in: N * float").Output("out: float").Attr("N: int >= 0 = 0").Kernel("CPU", never);
    r->Register("GpuOnly").Input("in: N * float").Output("out: float").Attr("N: int >= 0 = 0").Kernel("GPU", never);
    return r;
  }();
  return *registry;
}

std::string TestNode(const std::string& name, const std::string& op, const std::string& device,
                     const std::string& extra = "") {
  return "node { name: '" + name + "' op: '" + op + "' device: '" + device + "' " + extra + " }";
}

struct Placed {
  Status status;
  std::unique_ptr<Graph> graph;
  std::vector<std::string> log;
  std::string DeviceOf(const std::string& node) const {
    Node* n = graph ? graph->FindNode(node) : nullptr;
    return n == nullptr ? "<missing>" : n->assigned_device();
  }
};

Placed Place(const tensorflow::GraphDef& def, const QStringList& devices, PlacerOptions options = {},
             const OpRegistry& registry = OpRegistry::Global()) {
  Placed placed;
  auto graph = Graph::FromGraphDef(def, registry);
  if (!graph.ok()) {
    placed.status = graph.status();
    return placed;
  }
  placed.graph = std::move(graph).value();
  options.log = [&placed](const std::string& line) { placed.log.push_back(line); };
  placed.status = PlaceGraph(placed.graph.get(), Devices(devices), options);
  return placed;
}

QString Message(const Status& status) { return QString::fromStdString(std::string(status.message())); }

Output IntConst(GraphBuilder& g, std::vector<std::vector<int32_t>> rows, std::string_view name = "") {
  return ops::Const(g, Tensor::Matrix<int32_t>(rows), name);
}

Output FloatVariable(GraphBuilder& g, int64_t rows, const std::string& name) {
  auto init = ops::Const(g, Tensor(DT_FLOAT, TensorShape{rows, 1}), name + "_init");
  return ops::MakeVariable(g, init, name).var;
}

}  // namespace

class TestPlacer : public QObject {
  Q_OBJECT

 private slots:
  void explicitAndPartialRequests_data();
  void explicitAndPartialRequests();
  void defaultDeviceFillsOpenFields();
  void prefersGpuWhenItHasAKernel();
  void softPlacement_data();
  void softPlacement();
  void colocationByReferenceAndClass();
  void colocationConflicts();
  void deviceFunctionPlacement();
  void replicaDeviceSetterRoundRobin();
  void greedyByBytesBalancesWhatRoundRobinPilesUp();
  void replicaDeviceSetterNesting();
  void replicaDeviceSetterOptions();
  void seedProgramLogLines();
  void logsNothingUnlessAsked();
};

void TestPlacer::explicitAndPartialRequests_data() {
  // clang-format off
  QTest::addColumn<QString>("request");
  QTest::addColumn<QString>("expected");  // a device, or a substring of the error

  QTest::newRow("unconstrained: first device") << "" << "/job:worker/replica:0/task:0/device:CPU:0";
  QTest::newRow("job") << "/job:ps" << "/job:ps/replica:0/task:0/device:CPU:0";
  QTest::newRow("job and task") << "/job:worker/task:1" << "/job:worker/replica:0/task:1/device:CPU:0";
  QTest::newRow("trailing slash") << "/job:worker/task:1/" << "/job:worker/replica:0/task:1/device:CPU:0";
  QTest::newRow("legacy type only") << "/cpu:0" << "/job:worker/replica:0/task:0/device:CPU:0";
  QTest::newRow("full") << "/job:ps/replica:0/task:0/device:CPU:0" << "/job:ps/replica:0/task:0/device:CPU:0";
  QTest::newRow("any id") << "/job:ps/device:CPU:*" << "/job:ps/replica:0/task:0/device:CPU:0";
  QTest::newRow("no such task")
      << "/job:worker/task:7"
      << "Cannot assign a device for operation 'c': Operation was explicitly assigned to /job:worker/task:7 but "
         "available devices are [ /job:ps/replica:0/task:0/device:CPU:0, /job:worker/replica:0/task:0/device:CPU:0, "
         "/job:worker/replica:0/task:1/device:CPU:0 ]. Make sure the device specification refers to a valid device.";
  QTest::newRow("no such job") << "/job:chief" << "explicitly assigned to /job:chief but available devices are [ ";
  QTest::newRow("no such device") << "/device:GPU:0" << "explicitly assigned to /device:GPU:0";
  QTest::newRow("no such id") << "/job:ps/task:0/device:CPU:1" << "explicitly assigned to /job:ps/task:0/device:CPU:1";
  QTest::newRow("malformed") << "/job:my-job" << "Cannot assign a device for operation 'c': Malformed device";
  // clang-format on
}

void TestPlacer::explicitAndPartialRequests() {
  QFETCH(QString, request);
  QFETCH(QString, expected);
  auto def = ParseGraph(R"(node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } })");
  def.mutable_node(0)->set_device(request.toStdString());
  Placed placed = Place(def, kThreeTasks);
  if (expected.startsWith("/job:")) {
    QVERIFY2(placed.status.ok(), placed.status.ToString().c_str());
    QCOMPARE(QString::fromStdString(placed.DeviceOf("c")), expected);
    return;
  }
  QCOMPARE(placed.status.code(), absl::StatusCode::kInvalidArgument);
  QVERIFY2(Message(placed.status).contains(expected), qPrintable(Message(placed.status)));
}

void TestPlacer::defaultDeviceFillsOpenFields() {
  auto def = ParseGraph(TestNode("free", "CpuOnly", "") + TestNode("pinned", "CpuOnly", "/job:ps") +
                        TestNode("typed", "CpuOnly", "/device:CPU:0"));
  PlacerOptions options;
  options.default_device = "/job:worker/task:1";
  Placed placed = Place(def, kThreeTasks, options, TestRegistry());
  QVERIFY2(placed.status.ok(), placed.status.ToString().c_str());
  QCOMPARE(placed.DeviceOf("free"), std::string("/job:worker/replica:0/task:1/device:CPU:0"));
  QCOMPARE(placed.DeviceOf("pinned"), std::string("/job:ps/replica:0/task:0/device:CPU:0"));
  QCOMPARE(placed.DeviceOf("typed"), std::string("/job:worker/replica:0/task:1/device:CPU:0"));
}

void TestPlacer::prefersGpuWhenItHasAKernel() {
  auto def = ParseGraph(TestNode("both", "Both", "") + TestNode("cpu_only", "CpuOnly", "") +
                        TestNode("gpu_only", "GpuOnly", "") + TestNode("both_on_cpu", "Both", "/cpu:0") +
                        TestNode("both_in_task", "Both", "/job:localhost/task:0"));
  Placed placed = Place(def, kLocalWithGpu, {}, TestRegistry());
  QVERIFY2(placed.status.ok(), placed.status.ToString().c_str());
  QCOMPARE(placed.DeviceOf("both"), std::string("/job:localhost/replica:0/task:0/device:GPU:0"));
  QCOMPARE(placed.DeviceOf("cpu_only"), std::string("/job:localhost/replica:0/task:0/device:CPU:0"));
  QCOMPARE(placed.DeviceOf("gpu_only"), std::string("/job:localhost/replica:0/task:0/device:GPU:0"));
  QCOMPARE(placed.DeviceOf("both_on_cpu"), std::string("/job:localhost/replica:0/task:0/device:CPU:0"));
  QCOMPARE(placed.DeviceOf("both_in_task"), std::string("/job:localhost/replica:0/task:0/device:GPU:0"));

  // A GPU in another task does not pull unconstrained work away from the default task.
  PlacerOptions options;
  options.default_device = "/job:worker/task:0";
  Placed spread = Place(ParseGraph(TestNode("both", "Both", "")),
                        {"/job:worker/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:1/device:CPU:0",
                         "/job:worker/replica:0/task:1/device:GPU:0"},
                        options, TestRegistry());
  QVERIFY(spread.status.ok());
  QCOMPARE(spread.DeviceOf("both"), std::string("/job:worker/replica:0/task:0/device:CPU:0"));

  // Without a GPU, a GPU-only op cannot go anywhere.
  Placed nowhere = Place(ParseGraph(TestNode("gpu_only", "GpuOnly", "")), {kLocalWithGpu[0]}, {}, TestRegistry());
  QCOMPARE(nowhere.status.code(), absl::StatusCode::kInvalidArgument);
  QVERIFY2(Message(nowhere.status).contains("it has kernels for GPU only"), qPrintable(Message(nowhere.status)));
}

void TestPlacer::softPlacement_data() {
  // clang-format off
  QTest::addColumn<QString>("op");
  QTest::addColumn<QString>("request");
  QTest::addColumn<bool>("soft");
  QTest::addColumn<QString>("expected");  // device, or error substring
  QTest::addColumn<QString>("note");      // expected soft-placement log line substring

  const QString cpu = kLocalWithGpu[0];
  const QString gpu = kLocalWithGpu[1];
  QTest::newRow("no GPU kernel, hard")
      << "CpuOnly" << "/device:GPU:0" << false
      << "Could not satisfy explicit device specification '/device:GPU:0' because no supported kernel for GPU "
         "devices is available.\nRegistered kernels:\n  device='CPU'"
      << "";
  QTest::newRow("no GPU kernel, soft") << "CpuOnly" << "/device:GPU:0" << true << cpu
                                       << "n: soft placement: ignoring the device type and id of '/device:GPU:0' "
                                          "because op CpuOnly has no GPU kernel";
  QTest::newRow("no such GPU, hard") << "Both" << "/device:GPU:3" << false
                                     << "explicitly assigned to /device:GPU:3 but available devices are" << "";
  QTest::newRow("no such GPU, soft") << "Both" << "/device:GPU:3" << true << gpu
                                     << "because no such device exists";
  QTest::newRow("soft keeps the task") << "CpuOnly" << "/job:localhost/task:0/device:GPU:0" << true << cpu
                                       << "op CpuOnly has no GPU kernel";
  QTest::newRow("soft cannot change the job") << "Both" << "/job:ps/device:GPU:0" << true
                                              << "explicitly assigned to /job:ps/device:GPU:0" << "";
  QTest::newRow("honoured request needs no note") << "Both" << "/device:GPU:0" << true << gpu << "";
  // clang-format on
}

void TestPlacer::softPlacement() {
  QFETCH(QString, op);
  QFETCH(QString, request);
  QFETCH(bool, soft);
  QFETCH(QString, expected);
  QFETCH(QString, note);
  PlacerOptions options;
  options.allow_soft_placement = soft;
  Placed placed =
      Place(ParseGraph(TestNode("n", op.toStdString(), request.toStdString())), kLocalWithGpu, options, TestRegistry());
  if (expected.startsWith("/job:")) {
    QVERIFY2(placed.status.ok(), placed.status.ToString().c_str());
    QCOMPARE(QString::fromStdString(placed.DeviceOf("n")), expected);
  } else {
    QCOMPARE(placed.status.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Message(placed.status).contains(expected), qPrintable(Message(placed.status)));
  }
  if (note.isEmpty()) {
    QVERIFY(placed.log.empty());
  } else {
    QCOMPARE(placed.log.size(), size_t{1});
    QVERIFY2(QString::fromStdString(placed.log[0]).contains(note), placed.log[0].c_str());
  }
}

void TestPlacer::colocationByReferenceAndClass() {
  // w is pinned; its Assign (a ref consumer) and its read (by _class) follow it, and so does
  // an Identity colocated through the legacy "@w" device form.
  auto def = ParseGraph(R"(
    node { name: "init" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 2 } } } }
    node { name: "w" op: "VariableV2" device: "/job:ps/task:0"
      attr { key: "dtype" value { type: DT_INT32 } } attr { key: "shape" value { shape { } } } }
    node { name: "w/Assign" op: "Assign" input: "w" input: "init" attr { key: "T" value { type: DT_INT32 } } }
    node { name: "w/read" op: "Identity" input: "w" attr { key: "T" value { type: DT_INT32 } }
      attr { key: "_class" value { list { s: "loc:@w" } } } }
    node { name: "legacy" op: "Identity" input: "init" device: "@w" attr { key: "T" value { type: DT_INT32 } } }
    node { name: "free" op: "Identity" input: "w" attr { key: "T" value { type: DT_INT32 } } })");
  Placed placed = Place(def, kThreeTasks);
  QVERIFY2(placed.status.ok(), placed.status.ToString().c_str());
  const std::string ps = "/job:ps/replica:0/task:0/device:CPU:0";
  QCOMPARE(placed.DeviceOf("w"), ps);
  QCOMPARE(placed.DeviceOf("w/Assign"), ps);
  QCOMPARE(placed.DeviceOf("w/read"), ps);
  QCOMPARE(placed.DeviceOf("legacy"), ps);
  // Reading a ref does not colocate: "free" is unconstrained.
  QCOMPARE(placed.DeviceOf("free"), std::string("/job:worker/replica:0/task:0/device:CPU:0"));
  QCOMPARE(placed.DeviceOf("init"), std::string("/job:worker/replica:0/task:0/device:CPU:0"));
}

void TestPlacer::colocationConflicts() {
  auto def = ParseGraph(R"(
    node { name: "init" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 2 } } } }
    node { name: "w" op: "VariableV2" device: "/job:ps"
      attr { key: "dtype" value { type: DT_INT32 } } attr { key: "shape" value { shape { } } } }
    node { name: "w/Assign" op: "Assign" input: "w" input: "init" device: "/job:worker"
      attr { key: "T" value { type: DT_INT32 } } })");
  // A node writing through a reference follows its variable, whatever its own scope asked
  // for, and the log says so (TensorFlow would fail here; the seed's global-step increment
  // built under the worker's device scope is the common case).
  Placed placed = Place(def, kThreeTasks);
  QVERIFY2(placed.status.ok(), placed.status.ToString().c_str());
  QCOMPARE(placed.DeviceOf("w/Assign"), std::string("/job:ps/replica:0/task:0/device:CPU:0"));
  bool noted = false;
  for (const auto& line : placed.log) noted = noted || line.find("writes variable 'w'") != std::string::npos;
  QVERIFY(noted);

  // Different ids in one group: an error, unless soft placement keeps the first.
  auto ids =
      ParseGraph(TestNode("a", "Both", "/device:GPU:0") +
                 TestNode("b", "Both", "/device:GPU:1", "attr { key: '_class' value { list { s: 'loc:@a' } } }"));
  Placed hard = Place(ids, kLocalWithGpu, {}, TestRegistry());
  QVERIFY2(
      Message(hard.status).contains("Cannot merge devices with incompatible ids: '/device:GPU:0' and '/device:GPU:1'"),
      qPrintable(Message(hard.status)));

  // No device type runs both members of a group.
  auto kernels = ParseGraph(TestNode("cpu", "CpuOnly", "") +
                            TestNode("gpu", "GpuOnly", "", "attr { key: '_class' value { list { s: 'loc:@cpu' } } }"));
  Placed split = Place(kernels, kLocalWithGpu, {}, TestRegistry());
  QVERIFY2(Message(split.status).contains("no device type has a kernel for every node colocated with it"),
           qPrintable(Message(split.status)));
}

void TestPlacer::deviceFunctionPlacement() {
  GraphBuilder g;
  auto scope = g.WithDevice([](const tensorflow::NodeDef& node) {
    return node.op() == "Const" ? std::string("/job:worker/task:1") : std::string("/job:ps/task:0");
  });
  auto x = IntConst(g, {{1}}, "x");
  ops::Identity(g, x, "y");
  QVERIFY(g.status().ok());
  Placed placed = Place(g.graph_def(), kThreeTasks);
  QVERIFY2(placed.status.ok(), placed.status.ToString().c_str());
  QCOMPARE(placed.DeviceOf("x"), std::string("/job:worker/replica:0/task:1/device:CPU:0"));
  QCOMPARE(placed.DeviceOf("y"), std::string("/job:ps/replica:0/task:0/device:CPU:0"));
}

void TestPlacer::replicaDeviceSetterRoundRobin() {
  GraphBuilder g;
  auto setter = ReplicaDeviceSetter({.ps_tasks = 2, .worker_device = "/job:worker/task:0"});
  QVERIFY(setter.ok());
  auto scope = g.WithDevice(*setter);
  auto x = ops::Const(g, Tensor::Matrix<float>({{1.f}}), "x");
  FloatVariable(g, 1, "w0");
  FloatVariable(g, 1, "w1");
  FloatVariable(g, 1, "w2");
  ops::MatMul(g, x, Output("w2/read"));
  QVERIFY2(g.status().ok(), g.status().ToString().c_str());

  Placed placed =
      Place(g.graph_def(), {"/job:ps/replica:0/task:0/device:CPU:0", "/job:ps/replica:0/task:1/device:CPU:0",
                            "/job:worker/replica:0/task:0/device:CPU:0"});
  QVERIFY2(placed.status.ok(), placed.status.ToString().c_str());
  const std::string ps0 = "/job:ps/replica:0/task:0/device:CPU:0", ps1 = "/job:ps/replica:0/task:1/device:CPU:0";
  const std::string worker = "/job:worker/replica:0/task:0/device:CPU:0";
  QCOMPARE(placed.DeviceOf("w0"), ps0);
  QCOMPARE(placed.DeviceOf("w0/Assign"), ps0);
  QCOMPARE(placed.DeviceOf("w0/read"), ps0);
  QCOMPARE(placed.DeviceOf("w1"), ps1);
  QCOMPARE(placed.DeviceOf("w1/read"), ps1);
  QCOMPARE(placed.DeviceOf("w2"), ps0);
  QCOMPARE(placed.DeviceOf("x"), worker);
  QCOMPARE(placed.DeviceOf("w0_init"), worker);
  QCOMPARE(placed.DeviceOf("MatMul"), worker);
}

void TestPlacer::greedyByBytesBalancesWhatRoundRobinPilesUp() {
  const std::vector<int64_t> rows = {100, 10, 10, 50};  // 400, 40, 40, 200 bytes of float
  auto build = [&](PsStrategy strategy) {
    GraphBuilder g;
    auto setter = ReplicaDeviceSetter({.ps_tasks = 2, .ps_strategy = std::move(strategy)});
    auto scope = g.WithDevice(*setter);
    for (size_t i = 0; i < rows.size(); ++i) FloatVariable(g, rows[i], "v" + std::to_string(i));
    std::vector<std::string> tasks;
    for (size_t i = 0; i < rows.size(); ++i) tasks.push_back(g.FindNode("v" + std::to_string(i))->device());
    return tasks;
  };
  QCOMPARE(build(nullptr),
           (std::vector<std::string>{"/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0", "/job:ps/task:1"}));
  QCOMPARE(build(GreedyLoadBalancingStrategy(2, ByteSizeLoadFn)),
           (std::vector<std::string>{"/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:1", "/job:ps/task:1"}));

  GraphBuilder g;
  FloatVariable(g, 100, "big");
  QCOMPARE(ByteSizeLoadFn(*g.FindNode("big")), int64_t{400});
  ops::Placeholder(g, DT_FLOAT, PartialShape{-1, 3}, "unknown");
  QCOMPARE(ByteSizeLoadFn(*g.FindNode("unknown")), int64_t{0});
}

void TestPlacer::replicaDeviceSetterNesting() {
  GraphBuilder g;
  auto setter = ReplicaDeviceSetter({.ps_tasks = 2, .worker_device = "/job:worker/task:0"});
  auto outer = g.WithDevice(*setter);
  Output on_cpu, on_worker, next;
  {
    // Inner spec first, then the setter fills in the ps job and a task.
    auto cpu = g.WithDevice("/cpu:0");
    on_cpu = FloatVariable(g, 1, "on_cpu");
  }
  {
    // A variable pinned to another job keeps its job and uses no ps slot.
    auto worker = g.WithDevice("/job:worker/task:1");
    on_worker = FloatVariable(g, 1, "on_worker");
  }
  next = FloatVariable(g, 1, "next");
  QVERIFY(g.status().ok());
  QCOMPARE(g.FindNode("on_cpu")->device(), std::string("/job:ps/task:0/device:CPU:0"));
  QCOMPARE(g.FindNode("on_worker")->device(), std::string("/job:worker/task:1"));
  QCOMPARE(g.FindNode("next")->device(), std::string("/job:ps/task:1"));
  // Non-variable ops inside the inner scope take the worker job but keep their own task.
  QCOMPARE(g.FindNode("on_worker_init")->device(), std::string("/job:worker/task:1"));
}

void TestPlacer::replicaDeviceSetterOptions() {
  std::map<std::string, std::vector<std::string>> cluster = {{"ps", {"ps0:2222", "ps1:2222", "ps2:2222"}},
                                                             {"worker", {"w0:2222"}}};
  {
    GraphBuilder g;
    auto setter = ReplicaDeviceSetter({.ps_tasks = 1, .cluster = cluster});  // the cluster's 3 ps win
    auto scope = g.WithDevice(*setter);
    for (int i = 0; i < 4; ++i) FloatVariable(g, 1, "v" + std::to_string(i));
    QCOMPARE(g.FindNode("v2")->device(), std::string("/job:ps/task:2"));
    QCOMPARE(g.FindNode("v3")->device(), std::string("/job:ps/task:0"));
  }
  auto no_ps = ReplicaDeviceSetter(
      {.ps_tasks = 2, .cluster = std::map<std::string, std::vector<std::string>>{{"worker", {"w0:2222"}}}});
  QVERIFY(no_ps.ok() && !*no_ps);
  auto bad = ReplicaDeviceSetter({.ps_tasks = 1, .worker_device = "/job:work-er"});
  QCOMPARE(bad.status().code(), absl::StatusCode::kInvalidArgument);
  QVERIFY(Message(bad.status()).contains("worker_device"));
  {
    GraphBuilder g;
    auto setter = ReplicaDeviceSetter({.ps_tasks = 2, .merge_devices = false});
    auto scope = g.WithDevice(*setter);
    {
      auto pinned = g.WithDevice("/task:5");
      FloatVariable(g, 1, "kept");
    }
    QCOMPARE(g.FindNode("kept")->device(), std::string("/task:5"));
  }
  {
    // Custom ps_ops: Const is treated as state to place on the ps.
    GraphBuilder g;
    auto setter = ReplicaDeviceSetter({.ps_tasks = 2, .ps_ops = {"Const"}});
    auto scope = g.WithDevice(*setter);
    IntConst(g, {{1}}, "a");
    IntConst(g, {{1}}, "b");
    QCOMPARE(g.FindNode("a")->device(), std::string("/job:ps/task:0"));
    QCOMPARE(g.FindNode("b")->device(), std::string("/job:ps/task:1"));
  }
  QVERIFY(std::count(StandardPsOps().begin(), StandardPsOps().end(), "VariableV2") == 1);
  QCOMPARE(StandardPsOps().size(), size_t{10});
}

void TestPlacer::seedProgramLogLines() {
  // The seed program: one ps, one worker, worker_device with a trailing '/'.
  std::map<std::string, std::vector<std::string>> cluster = {{"ps", {"localhost:2222"}},
                                                             {"worker", {"localhost:2223"}}};
  GraphBuilder g;
  auto setter = ReplicaDeviceSetter({.worker_device = "/job:worker/task:0/", .cluster = cluster});
  QVERIFY(setter.ok() && *setter);
  auto scope = g.WithDevice(*setter);
  auto x = IntConst(g, {{1, 2, 3, 4}}, "x");
  auto w = ops::MakeVariable(g, IntConst(g, {{2}, {2}, {2}, {2}}, "initial_value"), "w");
  ops::MatMul(g, x, w.read);
  QVERIFY2(g.status().ok(), g.status().ToString().c_str());

  PlacerOptions options;
  options.log_device_placement = true;
  options.default_device = "/job:worker/task:0";
  Placed placed = Place(
      g.graph_def(), {"/job:ps/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0"}, options);
  QVERIFY2(placed.status.ok(), placed.status.ToString().c_str());
  const std::vector<std::string> expected = {
      "x: (Const): /job:worker/replica:0/task:0/device:CPU:0",
      "initial_value: (Const): /job:worker/replica:0/task:0/device:CPU:0",
      "w: (VariableV2): /job:ps/replica:0/task:0/device:CPU:0",
      "w/Assign: (Assign): /job:ps/replica:0/task:0/device:CPU:0",
      "w/read: (Identity): /job:ps/replica:0/task:0/device:CPU:0",
      "MatMul: (MatMul): /job:worker/replica:0/task:0/device:CPU:0",
  };
  QCOMPARE(placed.log, expected);
}

void TestPlacer::logsNothingUnlessAsked() {
  GraphBuilder g;
  IntConst(g, {{1}}, "x");
  Placed placed = Place(g.graph_def(), kThreeTasks);
  QVERIFY(placed.status.ok());
  QVERIFY(placed.log.empty());
}

QTEST_APPLESS_MAIN(TestPlacer)
#include "tst_placer.moc"
