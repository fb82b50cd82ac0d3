// Sessions across servers of one cluster, all in this process on free loopback ports, the
// partitions talking real gRPC: the seed program, a client over the wire, between-graph
// replication, tasks that start late or never, a ps that stops mid-run.
#include "ServerFixture.h"
#include "StatusText.h"

#include "clab/runtime/Session.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/GradientDescentOptimizer.h"
#include "distributed/GrpcSession.h"
#include "distributed/Master.h"

#include <QtTest>

#include <chrono>
#include <future>

using namespace clab;
using namespace clab::testing;
using Clock = std::chrono::steady_clock;

namespace {

struct TwoTaskCluster {
  int ps_port = FreePort();
  int worker_port = FreePort();
  std::map<std::string, std::vector<std::string>> dict() const {
    return {{"ps", {LoopbackAddress(ps_port)}}, {"worker", {LoopbackAddress(worker_port)}}};
  }
  ClusterSpec spec() const { return *ClusterSpec::FromDict(dict()); }
};

int64_t MillisSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

std::string Message(const Status& status) { return std::string(status.message()); }

// Runs the seed's init and product on `session`; the product's text ("[[20]]").
StatusOr<std::string> RunSeed(Session& session, const SeedGraph& seed, bool initialize = true) {
  std::vector<Tensor> outputs;
  if (initialize) CLAB_RETURN_IF_ERROR(session.Run({}, {}, {seed.init}, &outputs));
  CLAB_RETURN_IF_ERROR(session.Run({}, {seed.product}, {}, &outputs));
  return outputs.at(0).DebugString();
}

}  // namespace

class DistributedSessionTest : public QObject {
  Q_OBJECT

 private slots:
  void seedGraphOnPsAndWorker();
  void remoteSessionOverGrpc();
  void fetchesComeBackInRequestedOrder();
  void inProcessFeedsAreHandedOverNotEncoded();
  void betweenGraphReplicationSharesPsVariables();
  void psStartedAfterTheClientIsWaitedFor();
  void psThatNeverStartsIsNamedAtTheDeadline();
  void contactAllTasksWaitsForEveryTask();
  void stoppedPsFailsTheNextStepQuickly();
  void sessionErrorsHaveClearCodes();
  void fullTraceReturnsStepStats();
  void smallReadsRideBackInTheRunGraphReply();
  void aTrainingStepSendsOneMessageEachWay();
};

void DistributedSessionTest::seedGraphOnPsAndWorker() {
  TwoTaskCluster cluster;
  LogCapture worker_log;
  auto ps = StartServer(cluster.spec(), "ps", 0);
  QVERIFY2(ps.ok(), ps.status().ToString().c_str());
  auto worker = StartServer(cluster.spec(), "worker", 0, &worker_log);
  QVERIFY2(worker.ok(), worker.status().ToString().c_str());
  auto seed = BuildSeedGraph(cluster.dict());
  QVERIFY2(seed.ok(), seed.status().ToString().c_str());

  SessionOptions options;
  options.target = (*worker)->target();
  options.config.set_log_device_placement(true);
  auto session = NewSession(options);
  QVERIFY2(session.ok(), session.status().ToString().c_str());
  QVERIFY2((*session)->Create(seed->graph).ok(), "Create");
  for (int step = 0; step < 3; ++step) {
    auto product = RunSeed(**session, *seed, step == 0);
    QVERIFY2(product.ok(), product.status().ToString().c_str());
    QCOMPARE(*product, std::string("[[20]]"));
  }
  // Placement is logged by the master the client talked to, with full device names.
  const std::string log = worker_log.All();
  QVERIFY2(worker_log.Contains("w: (VariableV2): /job:ps/replica:0/task:0/device:CPU:0"), log.c_str());
  QVERIFY2(worker_log.Contains("MatMul: (MatMul): /job:worker/replica:0/task:0/device:CPU:0"), log.c_str());
  QVERIFY2(worker_log.Contains("Start master session "), log.c_str());
  QVERIFY((*session)->Close().ok());
}

void DistributedSessionTest::remoteSessionOverGrpc() {
  TwoTaskCluster cluster;
  auto ps = StartServer(cluster.spec(), "ps", 0);
  auto worker = StartServer(cluster.spec(), "worker", 0);
  QVERIFY(ps.ok() && worker.ok());
  auto seed = BuildSeedGraph(cluster.dict());
  QVERIFY(seed.ok());

  SessionOptions options;
  options.target = (*worker)->target();
  auto session = GrpcSession::Open(options, /*allow_in_process_master=*/false);
  QVERIFY2(session.ok(), session.status().ToString().c_str());
  QVERIFY((*session)->Create(seed->graph).ok());
  auto product = RunSeed(**session, *seed);
  QVERIFY2(product.ok(), product.status().ToString().c_str());
  QCOMPARE(*product, std::string("[[20]]"));

  std::vector<tensorflow::DeviceAttributes> devices;
  QVERIFY((*session)->ListDevices(&devices).ok());
  QStringList names;
  for (const auto& device : devices) names << QString::fromStdString(device.name());
  QVERIFY2(names.contains("/job:ps/replica:0/task:0/device:CPU:0"), qPrintable(names.join(", ")));
  QVERIFY2(names.contains("/job:worker/replica:0/task:0/device:CPU:0"), qPrintable(names.join(", ")));
  QVERIFY((*session)->Close().ok());
}

void DistributedSessionTest::fetchesComeBackInRequestedOrder() {
  TwoTaskCluster cluster;
  auto ps = StartServer(cluster.spec(), "ps", 0);
  auto worker = StartServer(cluster.spec(), "worker", 0);
  QVERIFY(ps.ok() && worker.ok());
  auto seed = BuildSeedGraph(cluster.dict());
  QVERIFY(seed.ok());
  SessionOptions options;
  options.target = (*worker)->target();
  auto session = NewSession(options);
  QVERIFY((*session)->Create(seed->graph).ok());
  std::vector<Tensor> out;
  QVERIFY((*session)->Run({}, {}, {seed->init}, &out).ok());
  // One signature, two orders, one tensor fetched twice under two spellings.
  QVERIFY((*session)->Run({}, {seed->product, "x:0", "w"}, {}, &out).ok());
  QCOMPARE(out.size(), size_t{3});
  QCOMPARE(out[0].DebugString(), std::string("[[20]]"));
  QCOMPARE(out[1].DebugString(), std::string("[[1 2 3 4]]"));
  QVERIFY((*session)->Run({}, {"w", seed->product, "x", "x:0"}, {}, &out).ok());
  QCOMPARE(out.size(), size_t{4});
  QCOMPARE(out[1].DebugString(), std::string("[[20]]"));
  QCOMPARE(out[2].DebugString(), std::string("[[1 2 3 4]]"));
  QCOMPARE(out[3].DebugString(), std::string("[[1 2 3 4]]"));
  // A fed tensor replaces what the graph would compute.
  QVERIFY((*session)->Run({{"x", Tensor::Matrix<int32_t>({{1, 1, 1, 1}})}}, {seed->product}, {}, &out).ok());
  QCOMPARE(out[0].DebugString(), std::string("[[8]]"));
}

// A client in the master's process hands its fed tensors over as they are: the worker of
// that process takes the tensor itself (an Identity of it hands back the very buffer), and
// the ps, another task, gets it encoded once. Over the wire the results are the same.
void DistributedSessionTest::inProcessFeedsAreHandedOverNotEncoded() {
  TwoTaskCluster cluster;
  auto ps = StartServer(cluster.spec(), "ps", 0);
  auto worker = StartServer(cluster.spec(), "worker", 0);
  QVERIFY(ps.ok() && worker.ok());
  GraphBuilder g;
  {
    auto scope = g.WithDevice("/job:worker/task:0");
    ops::Identity(g, ops::Placeholder(g, DT_FLOAT, PartialShape{1000}, "a"), "a_out");
  }
  {
    auto scope = g.WithDevice("/job:ps/task:0");
    ops::Identity(g, ops::Placeholder(g, DT_FLOAT, PartialShape{2}, "b"), "b_out");
  }
  QVERIFY2(g.status().ok(), StatusText(g.status()));
  Tensor a(DT_FLOAT, TensorShape({1000}));
  for (int64_t i = 0; i < a.NumElements(); ++i) a.data<float>()[i] = static_cast<float>(i) * 0.5f;
  const Tensor b = Tensor::Vector<float>({1.5f, 2.5f});

  for (const bool in_process : {true, false}) {
    SessionOptions options;
    options.target = (*worker)->target();
    auto session = GrpcSession::Open(options, /*allow_in_process_master=*/in_process);
    QVERIFY2(session.ok(), StatusText(session.status()));
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    for (int step = 0; step < 2; ++step) {
      const Status ran = (*session)->Run({{"a", a}, {"b", b}}, {"a_out", "b_out"}, {}, &out);
      QVERIFY2(ran.ok(), StatusText(ran));
      QCOMPARE(out.size(), size_t{2});
      QCOMPARE(out[0].NumElements(), int64_t{1000});
      QCOMPARE(out[0].data<float>()[999], 499.5f);
      QCOMPARE(out[1].DebugString(), std::string("[1.5 2.5]"));
      QCOMPARE(out[0].SharesBufferWith(a), in_process);
    }
    QVERIFY((*session)->Close().ok());
  }
}

void DistributedSessionTest::betweenGraphReplicationSharesPsVariables() {
  const int ps_port = FreePort();
  const std::map<std::string, std::vector<std::string>> dict = {
      {"ps", {LoopbackAddress(ps_port)}}, {"worker", {LoopbackAddress(FreePort()), LoopbackAddress(FreePort())}}};
  const ClusterSpec spec = *ClusterSpec::FromDict(dict);
  auto ps = StartServer(spec, "ps", 0);
  auto worker0 = StartServer(spec, "worker", 0);
  auto worker1 = StartServer(spec, "worker", 1);
  QVERIFY(ps.ok() && worker0.ok() && worker1.ok());

  // Each client builds its own copy of the graph, as between-graph replication does.
  auto build = [&](int task) -> StatusOr<tensorflow::GraphDef> {
    GraphBuilder g;
    ReplicaDeviceSetterOptions setter_options;
    setter_options.worker_device = "/job:worker/task:" + std::to_string(task);
    setter_options.cluster = dict;
    CLAB_ASSIGN_OR_RETURN(DeviceFunction setter, ReplicaDeviceSetter(setter_options));
    auto scope = g.WithDevice(setter);
    ops::Variable counter = ops::MakeVariable(g, ops::Const(g, Tensor::Scalar<int32_t>(0)), "counter");
    {
      // As optimizers build their updates: next to the variable they change.
      auto colocated = g.ColocateWith(counter.var);
      ops::AssignAdd(g, counter.var, ops::Const(g, Tensor::Scalar<int32_t>(1)), "increment");
    }
    ops::GlobalVariablesInitializer(g);
    CLAB_RETURN_IF_ERROR(g.status());
    return g.graph_def();
  };
  std::unique_ptr<Session> clients[2];
  GrpcServer* servers[2] = {worker0->get(), worker1->get()};
  for (int task = 0; task < 2; ++task) {
    auto graph = build(task);
    QVERIFY2(graph.ok(), graph.status().ToString().c_str());
    SessionOptions options;
    options.target = servers[task]->target();
    auto session = NewSession(options);
    QVERIFY(session.ok());
    clients[task] = std::move(session).value();
    const Status created = clients[task]->Create(*graph);
    QVERIFY2(created.ok(), created.ToString().c_str());
  }
  std::vector<Tensor> out;
  QVERIFY(clients[0]->Run({}, {}, {"init"}, &out).ok());  // the chief initialises
  constexpr int kStepsPerClient = 10;
  for (int step = 0; step < kStepsPerClient; ++step) {
    for (auto& client : clients) {
      const Status ran = client->Run({}, {}, {"increment"}, &out);
      QVERIFY2(ran.ok(), ran.ToString().c_str());
    }
  }
  for (auto& client : clients) {
    QVERIFY(client->Run({}, {"counter/read:0"}, {}, &out).ok());
    QCOMPARE(out[0].scalar<int32_t>(), 2 * kStepsPerClient);
  }
}

void DistributedSessionTest::psStartedAfterTheClientIsWaitedFor() {
  TwoTaskCluster cluster;
  LogCapture worker_log;
  auto worker = StartServer(cluster.spec(), "worker", 0, &worker_log);
  QVERIFY(worker.ok());
  auto seed = BuildSeedGraph(cluster.dict());
  QVERIFY(seed.ok());

  SessionOptions options;
  options.target = (*worker)->target();
  options.config.mutable_clusterlab()->set_wait_for_tasks_ms(20000);
  options.config.mutable_clusterlab()->set_wait_log_interval_ms(200);
  auto session = NewSession(options);
  QVERIFY(session.ok());
  Session* client = session->get();
  auto created = std::async(std::launch::async, [client, &seed] { return client->Create(seed->graph); });
  const std::string waiting = "CreateSession still waiting for response from worker: /job:ps/replica:0/task:0 at " +
                              LoopbackAddress(cluster.ps_port);
  QVERIFY2(worker_log.WaitFor(waiting, 5000), worker_log.All().c_str());
  QVERIFY(created.wait_for(std::chrono::milliseconds(0)) == std::future_status::timeout);

  auto ps = StartServer(cluster.spec(), "ps", 0);
  QVERIFY2(ps.ok(), ps.status().ToString().c_str());
  QVERIFY(created.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  const Status status = created.get();
  QVERIFY2(status.ok(), status.ToString().c_str());
  auto product = RunSeed(*client, *seed);
  QVERIFY2(product.ok(), product.status().ToString().c_str());
  QCOMPARE(*product, std::string("[[20]]"));
}

void DistributedSessionTest::psThatNeverStartsIsNamedAtTheDeadline() {
  TwoTaskCluster cluster;
  auto worker = StartServer(cluster.spec(), "worker", 0);
  QVERIFY(worker.ok());
  auto seed = BuildSeedGraph(cluster.dict());
  QVERIFY(seed.ok());
  SessionOptions options;
  options.target = (*worker)->target();
  options.config.mutable_clusterlab()->set_wait_for_tasks_ms(1000);
  auto session = NewSession(options);
  const auto start = Clock::now();
  const Status status = (*session)->Create(seed->graph);
  const int64_t waited = MillisSince(start);
  QCOMPARE(status.code(), absl::StatusCode::kUnavailable);
  QVERIFY2(waited >= 900 && waited < 5000, std::to_string(waited).c_str());
  const std::string message = Message(status);
  QVERIFY2(message.find("/job:ps/replica:0/task:0 at " + LoopbackAddress(cluster.ps_port)) != std::string::npos,
           message.c_str());
  QVERIFY2(message.find("Start the missing task") != std::string::npos, message.c_str());
}

void DistributedSessionTest::contactAllTasksWaitsForEveryTask() {
  const std::map<std::string, std::vector<std::string>> dict = {
      {"ps", {LoopbackAddress(FreePort())}}, {"worker", {LoopbackAddress(FreePort()), LoopbackAddress(FreePort())}}};
  const ClusterSpec spec = *ClusterSpec::FromDict(dict);
  auto ps = StartServer(spec, "ps", 0);
  auto worker0 = StartServer(spec, "worker", 0);
  QVERIFY(ps.ok() && worker0.ok());
  auto seed = BuildSeedGraph(dict);
  QVERIFY(seed.ok());

  // By default worker 1, which never started, is not needed.
  SessionOptions options;
  options.target = (*worker0)->target();
  options.config.mutable_clusterlab()->set_wait_for_tasks_ms(1000);
  auto session = NewSession(options);
  QVERIFY2((*session)->Create(seed->graph).ok(), "default contact set");

  // As TensorFlow does, every task when asked to.
  options.config.mutable_clusterlab()->set_contact_all_tasks(true);
  auto all = NewSession(options);
  const Status status = (*all)->Create(seed->graph);
  QCOMPARE(status.code(), absl::StatusCode::kUnavailable);
  QVERIFY2(Message(status).find("/job:worker/replica:0/task:1") != std::string::npos, Message(status).c_str());
  QVERIFY2(Message(status).find("/job:ps/") == std::string::npos, Message(status).c_str());

  // Filters that leave worker 1 out make it unnecessary again.
  options.config.add_device_filters("/job:ps");
  options.config.add_device_filters("/job:worker/task:0");
  options.config.mutable_clusterlab()->set_contact_all_tasks(false);
  auto filtered = NewSession(options);
  QVERIFY((*filtered)->Create(seed->graph).ok());
}

void DistributedSessionTest::stoppedPsFailsTheNextStepQuickly() {
  TwoTaskCluster cluster;
  auto ps = StartServer(cluster.spec(), "ps", 0);
  auto worker = StartServer(cluster.spec(), "worker", 0);
  QVERIFY(ps.ok() && worker.ok());
  auto seed = BuildSeedGraph(cluster.dict());
  SessionOptions options;
  options.target = (*worker)->target();
  auto session = NewSession(options);
  QVERIFY((*session)->Create(seed->graph).ok());
  QVERIFY(RunSeed(**session, *seed).ok());

  QVERIFY((*ps)->Stop().ok());
  const auto start = Clock::now();
  std::vector<Tensor> out;
  const Status status = (*session)->Run({}, {seed->product}, {}, &out);
  QVERIFY2(MillisSince(start) < 10000, std::to_string(MillisSince(start)).c_str());
  QVERIFY2(status.code() == absl::StatusCode::kUnavailable || status.code() == absl::StatusCode::kAborted,
           status.ToString().c_str());
  QVERIFY2(Message(status).find("/job:ps/replica:0/task:0") != std::string::npos, status.ToString().c_str());
}

void DistributedSessionTest::sessionErrorsHaveClearCodes() {
  TwoTaskCluster cluster;
  auto ps = StartServer(cluster.spec(), "ps", 0);
  auto worker = StartServer(cluster.spec(), "worker", 0);
  QVERIFY(ps.ok() && worker.ok());
  auto seed = BuildSeedGraph(cluster.dict());
  SessionOptions options;
  options.target = (*worker)->target();
  auto session = NewSession(options);
  std::vector<Tensor> out;
  QCOMPARE((*session)->Run({}, {seed->product}, {}, &out).code(), absl::StatusCode::kFailedPrecondition);
  QVERIFY((*session)->Create(seed->graph).ok());
  QCOMPARE((*session)->Run({}, {"nope:0"}, {}, &out).code(), absl::StatusCode::kNotFound);

  tensorflow::GraphDef duplicate;
  *duplicate.add_node() = seed->graph.node(0);
  const Status extended = (*session)->Extend(duplicate);
  QCOMPARE(extended.code(), absl::StatusCode::kInvalidArgument);
  QVERIFY2(Message(extended).find(seed->graph.node(0).name()) != std::string::npos, Message(extended).c_str());

  // The master's own answers, without the client's checks in front.
  Master* master = (*worker)->master();
  tensorflow::CreateSessionRequest create;
  *create.mutable_graph_def() = seed->graph;
  tensorflow::CreateSessionResponse created;
  QVERIFY(master->CreateSession(create, &created).ok());
  QCOMPARE(created.session_handle().size(), size_t{16});
  tensorflow::ExtendSessionRequest stale;
  stale.set_session_handle(created.session_handle());
  stale.set_current_graph_version(created.graph_version() + 5);
  tensorflow::ExtendSessionResponse extend_response;
  // ABORTED, as TensorFlow's master answers: the client may retry from the current version.
  QCOMPARE(master->ExtendSession(stale, &extend_response).code(), absl::StatusCode::kAborted);

  tensorflow::CloseSessionRequest close;
  close.set_session_handle(created.session_handle());
  QVERIFY(master->CloseSession(close).ok());
  tensorflow::RunStepRequest run;
  run.set_session_handle(created.session_handle());
  run.add_fetch(seed->product);
  tensorflow::RunStepResponse run_response;
  // A closed session is not found (ABORTED), as in TensorFlow, whose monitored sessions
  // recover from ABORTED.
  const Status closed = master->RunStep(run, &run_response);
  QCOMPARE(closed.code(), absl::StatusCode::kAborted);
  QVERIFY2(Message(closed).find("is not found") != std::string::npos, Message(closed).c_str());
  run.set_session_handle("0123456789abcdef");
  const Status unknown = master->RunStep(run, &run_response);
  QCOMPARE(unknown.code(), absl::StatusCode::kAborted);
  QVERIFY2(Message(unknown).find("0123456789abcdef") != std::string::npos, Message(unknown).c_str());

  QVERIFY((*session)->Close().ok());
  QCOMPARE((*session)->Run({}, {seed->product}, {}, &out).code(), absl::StatusCode::kFailedPrecondition);
}

void DistributedSessionTest::fullTraceReturnsStepStats() {
  TwoTaskCluster cluster;
  auto ps = StartServer(cluster.spec(), "ps", 0);
  auto worker = StartServer(cluster.spec(), "worker", 0);
  QVERIFY(ps.ok() && worker.ok());
  auto seed = BuildSeedGraph(cluster.dict());
  SessionOptions options;
  options.target = (*worker)->target();
  auto session = NewSession(options);
  QVERIFY((*session)->Create(seed->graph).ok());
  std::vector<Tensor> out;
  QVERIFY((*session)->Run({}, {}, {seed->init}, &out).ok());
  tensorflow::RunOptions run_options;
  run_options.set_trace_level(tensorflow::RunOptions::FULL_TRACE);
  run_options.set_output_partition_graphs(true);
  tensorflow::RunMetadata metadata;
  const Status status = (*session)->Run(run_options, {}, {seed->product}, {}, &out, &metadata);
  QVERIFY2(status.ok(), status.ToString().c_str());
  QCOMPARE(metadata.partition_graphs_size(), 2);
  QStringList devices;
  for (const auto& stats : metadata.step_stats().dev_stats()) devices << QString::fromStdString(stats.device());
  QVERIFY2(devices.size() >= 2, qPrintable(devices.join(", ")));
}

namespace {

// The _Send nodes of the partition that runs on `job`.
// replica_device_setter for worker 0 of the cluster.
StatusOr<DeviceFunction> WorkerZeroSetter(const TwoTaskCluster& cluster) {
  ReplicaDeviceSetterOptions options;
  options.worker_device = "/job:worker/task:0";
  options.cluster = cluster.dict();
  return ReplicaDeviceSetter(options);
}

QStringList NodesOn(const tensorflow::RunMetadata& metadata, const std::string& job, const std::string& op) {
  QStringList sends;
  for (const tensorflow::GraphDef& graph : metadata.partition_graphs()) {
    if (graph.node_size() == 0 || graph.node(0).device().find("/job:" + job + "/") == std::string::npos) continue;
    for (const tensorflow::NodeDef& node : graph.node())
      if (node.op() == op) sends << QString::fromStdString(node.name());
  }
  return sends;
}

QStringList SendsOn(const tensorflow::RunMetadata& metadata, const std::string& job) {
  return NodesOn(metadata, job, "_Send");
}

QStringList RecvsOn(const tensorflow::RunMetadata& metadata, const std::string& job) {
  return NodesOn(metadata, job, "_Recv");
}

}  // namespace

// A ps partition that receives nothing returns its small reads in its RunGraph reply (no
// _Send, no RecvTensor); a big variable keeps its _Send; a partition that receives from the
// worker keeps every send. Values are right on the in-process and the remote client path.
void DistributedSessionTest::smallReadsRideBackInTheRunGraphReply() {
  TwoTaskCluster cluster;
  auto ps = StartServer(cluster.spec(), "ps", 0);
  auto worker = StartServer(cluster.spec(), "worker", 0);
  QVERIFY(ps.ok() && worker.ok());
  GraphBuilder g;
  auto setter = WorkerZeroSetter(cluster);
  QVERIFY(setter.ok());
  std::string small_sum, big_sum, bumped;
  {
    auto scope = g.WithDevice(*setter);
    ops::Variable small = ops::MakeVariable(g, ops::Const(g, Tensor::Vector<float>({1, 2, 3, 4})), "small");
    Tensor big_value(DT_FLOAT, TensorShape{100000});
    std::fill_n(big_value.data<float>(), 100000, 0.5f);
    ops::Variable big = ops::MakeVariable(g, ops::Const(g, big_value), "big");
    Output axis = ops::Const(g, Tensor::Scalar<int32_t>(0));
    small_sum = ops::Sum(g, small.read, axis, false, "small_sum").name();
    big_sum = ops::Sum(g, big.read, axis, false, "big_sum").name();
    // AssignAdd on the ps takes its increment from the worker: that partition receives.
    Output add = ops::AssignAdd(g, small.var, ops::Const(g, Tensor::Vector<float>({1, 1, 1, 1})), "bump");
    bumped = ops::Sum(g, add, axis, false, "bumped_sum").name();
  }
  ops::GlobalVariablesInitializer(g);
  QVERIFY2(g.status().ok(), g.status().ToString().c_str());

  for (bool in_process : {true, false}) {
    SessionOptions options;
    options.target = (*worker)->target();
    auto opened = GrpcSession::Open(options, in_process);
    QVERIFY2(opened.ok(), opened.status().ToString().c_str());
    std::unique_ptr<Session> session = *std::move(opened);
    QVERIFY(session->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    QVERIFY(session->Run({}, {}, {"init"}, &out).ok());
    tensorflow::RunOptions run_options;
    run_options.set_output_partition_graphs(true);
    tensorflow::RunMetadata metadata;
    Status status = session->Run(run_options, {}, {small_sum, big_sum}, {}, &out, &metadata);
    QVERIFY2(status.ok(), status.ToString().c_str());
    QCOMPARE(out.at(0).scalar<float>(), 10.0f);
    QCOMPARE(out.at(1).scalar<float>(), 50000.0f);
    const QStringList sends = SendsOn(metadata, "ps");
    QVERIFY2(sends.size() == 1 && sends[0].contains("big"), qPrintable(sends.join(", ")));

    tensorflow::RunMetadata bump_metadata;
    status = session->Run(run_options, {}, {bumped}, {}, &out, &bump_metadata);
    QVERIFY2(status.ok(), status.ToString().c_str());
    QCOMPARE(out.at(0).scalar<float>(), 14.0f);
    QVERIFY2(!SendsOn(bump_metadata, "ps").isEmpty(), "a receiving ps partition lost its sends");
    QVERIFY(session->Close().ok());
  }
}

// A training step reads several weights from the ps and sends their gradients back: each
// direction is packed into one message, the ps partition is cut in two so that both travel
// in RunGraph calls (the weights in a reply, the gradients in a request), and the step
// computes what it computed unpacked and uncut.
void DistributedSessionTest::aTrainingStepSendsOneMessageEachWay() {
  TwoTaskCluster cluster;
  auto ps = StartServer(cluster.spec(), "ps", 0);
  auto worker = StartServer(cluster.spec(), "worker", 0);
  QVERIFY(ps.ok() && worker.ok());
  GraphBuilder g;
  auto setter = WorkerZeroSetter(cluster);
  QVERIFY(setter.ok());
  std::string train;
  {
    auto scope = g.WithDevice(*setter);
    Output step = GetOrCreateGlobalStep(g);
    ops::Variable w = ops::MakeVariable(g, ops::Const(g, Tensor::Matrix<float>({{1, 2}, {3, 4}})), "w");
    ops::Variable b = ops::MakeVariable(g, ops::Const(g, Tensor::Vector<float>({0.5f, -0.5f})), "b");
    Output x = ops::Const(g, Tensor::Matrix<float>({{1, 1}}), "x");
    Output y = ops::Add(g, ops::MatMul(g, x, w.read), b.read);
    Output loss = ops::Sum(g, ops::Square(g, y), ops::Const(g, Tensor::Vector<int32_t>({0, 1})));
    auto op = GradientDescentOptimizer(0.01).Minimize(g, loss, step);
    QVERIFY(op.ok());
    train = op->node();
  }
  ops::GlobalVariablesInitializer(g);
  SessionOptions options;
  options.target = (*worker)->target();
  auto session = NewSession(options);
  QVERIFY(session.ok() && (*session)->Create(g.graph_def()).ok());
  std::vector<Tensor> out;
  QVERIFY((*session)->Run({}, {}, {"init"}, &out).ok());
  tensorflow::RunOptions run_options;
  run_options.set_output_partition_graphs(true);
  tensorflow::RunMetadata metadata;
  Status status = (*session)->Run(run_options, {}, {}, {train}, &out, &metadata);
  QVERIFY2(status.ok(), status.ToString().c_str());
  // The ps partition is cut in two: the part that reads the weights sends nothing (the
  // packed weights come back in its RunGraph reply), the part that applies the gradients
  // receives one packed message, which the master hands it in its RunGraph request.
  QCOMPARE(metadata.partition_graphs_size(), 3);
  QVERIFY2(SendsOn(metadata, "ps").isEmpty(), qPrintable(SendsOn(metadata, "ps").join(", ")));
  QCOMPARE(RecvsOn(metadata, "ps").size(), 1);
  QCOMPARE(SendsOn(metadata, "worker").size(), 1);
  // Both parts ran: the global step moved once.
  QVERIFY((*session)->Run({}, {"global_step:0"}, {}, &out).ok());
  QCOMPARE(out[0].scalar<int64_t>(), int64_t{1});
  // y = [4.5, 5.5]; d loss / d w = x^T 2y = [[9, 11], [9, 11]], d loss / d b = [9, 11].
  QVERIFY((*session)->Run({}, {"w:0", "b:0"}, {}, &out).ok());
  QCOMPARE(out[0].data<float>()[0], 1 - 0.09f);
  QCOMPARE(out[0].data<float>()[3], 4 - 0.11f);
  QCOMPARE(out[1].data<float>()[1], -0.5f - 0.11f);
}

QTEST_APPLESS_MAIN(DistributedSessionTest)
#include "tst_distributed_session.moc"
