// Clusters of real processes on loopback: `clab server` tasks started by the test, clients
// in the test process talking gRPC to them. Between-graph replication over two workers,
// two ps tasks sharing the variables round robin, a ps killed mid-run, a ps that starts
// after the client, clean stops on SIGTERM and SIGINT, a port already in use, and the
// seed program and `clab demo` as a user runs them.
#include "StatusText.h"
#include "TaskProcess.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

using namespace clab;
using namespace clab::testing;
using Clock = std::chrono::steady_clock;

namespace {

struct Cluster {
  std::map<std::string, std::vector<std::string>> jobs;
  // "ps=127.0.0.1:1,127.0.0.1:2;worker=..." for --cluster
  QString spec() const {
    QStringList parts;
    for (const auto& [job, addresses] : jobs) {
      QStringList list;
      for (const std::string& address : addresses) list << QString::fromStdString(address);
      parts << QString::fromStdString(job) + "=" + list.join(",");
    }
    return parts.join(";");
  }
  std::string target(const std::string& job, int task) const { return "grpc://" + jobs.at(job).at(task); }
};

Cluster MakeCluster(int ps, int workers) {
  const std::vector<int> ports = FreePorts(ps + workers);
  Cluster cluster;
  for (int i = 0; i < ps; ++i) cluster.jobs["ps"].push_back("127.0.0.1:" + std::to_string(ports[i]));
  for (int i = 0; i < workers; ++i) cluster.jobs["worker"].push_back("127.0.0.1:" + std::to_string(ports[ps + i]));
  return cluster;
}

// Variables named `names` (float scalars starting at 1, 2, ...) under replica_device_setter
// for worker `task`; "<name>/inc" adds 1 to each; "total" sums them on the worker.
struct CounterGraph {
  tensorflow::GraphDef graph;
  std::string init;
  std::vector<std::string> increments;
  std::string total;
};

StatusOr<CounterGraph> BuildCounterGraph(const Cluster& cluster, int task, const std::vector<std::string>& names) {
  GraphBuilder g;
  ReplicaDeviceSetterOptions setter_options;
  setter_options.worker_device = "/job:worker/task:" + std::to_string(task);
  setter_options.cluster = cluster.jobs;
  CLAB_ASSIGN_OR_RETURN(DeviceFunction setter, ReplicaDeviceSetter(setter_options));
  CounterGraph built;
  auto scope = g.WithDevice(setter);
  Output total;
  float start = 1;
  for (const std::string& name : names) {
    ops::Variable v =
        ops::MakeVariable(g, ops::Const(g, Tensor::Scalar<float>(start++), name + "/initial_value"), name);
    built.increments.push_back(ops::AssignAdd(g, v.var, ops::Const(g, Tensor::Scalar<float>(1)), name + "/inc").node());
    total = total.node().empty() ? v.read : ops::Add(g, total, v.read);
  }
  built.total = ops::Identity(g, total, "total").name();
  built.init = ops::GlobalVariablesInitializer(g).node();
  CLAB_RETURN_IF_ERROR(g.status());
  built.graph = g.graph_def();
  return built;
}

StatusOr<std::unique_ptr<Session>> OpenSession(const std::string& target, const tensorflow::GraphDef& graph,
                                               int64_t wait_for_tasks_ms = 20000, bool log_placement = false) {
  SessionOptions options;
  options.target = target;
  options.config.mutable_clusterlab()->set_wait_for_tasks_ms(wait_for_tasks_ms);
  options.config.mutable_clusterlab()->set_wait_log_interval_ms(500);
  options.config.set_log_device_placement(log_placement);
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(options));
  CLAB_RETURN_IF_ERROR(session->Create(graph));
  return session;
}

StatusOr<float> FetchFloat(Session& session, const std::string& name) {
  std::vector<Tensor> out;
  CLAB_RETURN_IF_ERROR(session.Run({}, {name}, {}, &out));
  return out.at(0).scalar<float>();
}

Status RunTarget(Session& session, const std::string& node) {
  std::vector<Tensor> out;
  return session.Run({}, {}, {node}, &out);
}

}  // namespace

class ClusterProcessesTest : public QObject {
  Q_OBJECT

 private slots:
  void psAndTwoWorkersShareVariables();
  void twoPsHoldVariablesRoundRobin();
  void psKilledMidRunFailsTheClientQuickly();
  void psStartedAfterTheClientIsWaitedFor();
  void serverStopsCleanlyOnSignals_data();
  void serverStopsCleanlyOnSignals();
  void portInUseIsNamed();
  void seedProgramAsTwoProcesses();
  void demoRunsPsAndWorkerProcesses();
  void demoCheckpointsAreListedAndShown();
  void watchPrintsATasksEvents();
  void trainRunsAProjectOnProcesses();
};

void ClusterProcessesTest::psAndTwoWorkersShareVariables() {
  const Cluster cluster = MakeCluster(1, 2);
  auto ps = TaskProcess::Server(cluster.spec(), "ps", 0);
  auto worker0 = TaskProcess::Server(cluster.spec(), "worker", 0);
  auto worker1 = TaskProcess::Server(cluster.spec(), "worker", 1);
  for (TaskProcess* task : {ps.get(), worker0.get(), worker1.get()})
    QVERIFY2(task->waitUntilServing(), qPrintable(task->output()));

  // Between-graph replication: each client builds its own graph for its own worker and
  // talks to that worker's master; the variable lives once, on the ps.
  auto graph0 = BuildCounterGraph(cluster, 0, {"counter"});
  auto graph1 = BuildCounterGraph(cluster, 1, {"counter"});
  QVERIFY(graph0.ok() && graph1.ok());
  auto chief = OpenSession(cluster.target("worker", 0), graph0->graph);
  auto other = OpenSession(cluster.target("worker", 1), graph1->graph);
  QVERIFY2(chief.ok(), StatusText(chief.status()));
  QVERIFY2(other.ok(), StatusText(other.status()));
  QVERIFY2(RunTarget(**chief, graph0->init).ok(), "init");
  for (int i = 0; i < 5; ++i) {
    QVERIFY2(RunTarget(**chief, graph0->increments[0]).ok(), "chief increment");
    QVERIFY2(RunTarget(**other, graph1->increments[0]).ok(), "other increment");
  }
  auto seen_by_chief = FetchFloat(**chief, graph0->total);
  auto seen_by_other = FetchFloat(**other, graph1->total);
  QVERIFY(seen_by_chief.ok() && seen_by_other.ok());
  QCOMPARE(*seen_by_chief, 11.0f);  // 1 + 5 + 5
  QCOMPARE(*seen_by_other, 11.0f);
  QVERIFY((*chief)->Close().ok());
  QVERIFY((*other)->Close().ok());
  for (TaskProcess* task : {worker1.get(), worker0.get(), ps.get()}) QCOMPARE(task->terminate(), 0);
}

void ClusterProcessesTest::twoPsHoldVariablesRoundRobin() {
  const Cluster cluster = MakeCluster(2, 1);
  auto ps0 = TaskProcess::Server(cluster.spec(), "ps", 0);
  auto ps1 = TaskProcess::Server(cluster.spec(), "ps", 1);
  auto worker = TaskProcess::Server(cluster.spec(), "worker", 0);
  for (TaskProcess* task : {ps0.get(), ps1.get(), worker.get()})
    QVERIFY2(task->waitUntilServing(), qPrintable(task->output()));

  auto graph = BuildCounterGraph(cluster, 0, {"a", "b", "c"});
  QVERIFY(graph.ok());
  auto session = OpenSession(cluster.target("worker", 0), graph->graph, 20000, /*log_placement=*/true);
  QVERIFY2(session.ok(), StatusText(session.status()));
  QVERIFY(RunTarget(**session, graph->init).ok());
  for (const std::string& increment : graph->increments) QVERIFY(RunTarget(**session, increment).ok());
  auto total = FetchFloat(**session, graph->total);
  QVERIFY2(total.ok(), StatusText(total.status()));
  QCOMPARE(*total, 9.0f);  // (1 + 1) + (2 + 1) + (3 + 1)

  // The master the client talked to (the worker's) logs the placement: a, b, c go to
  // ps 0, 1, 0 in the order they were built; the sum runs on the worker.
  QVERIFY(worker->waitForOutput("total: (Identity)", 5000));
  const QString log = worker->output();
  QVERIFY2(log.contains("a: (VariableV2): /job:ps/replica:0/task:0/device:CPU:0"), qPrintable(log));
  QVERIFY2(log.contains("b: (VariableV2): /job:ps/replica:0/task:1/device:CPU:0"), qPrintable(log));
  QVERIFY2(log.contains("c: (VariableV2): /job:ps/replica:0/task:0/device:CPU:0"), qPrintable(log));
  QVERIFY2(log.contains("b/inc: (AssignAdd): /job:ps/replica:0/task:1/device:CPU:0"), qPrintable(log));
  QVERIFY2(log.contains("total: (Identity): /job:worker/replica:0/task:0/device:CPU:0"), qPrintable(log));
  QVERIFY((*session)->Close().ok());
}

void ClusterProcessesTest::psKilledMidRunFailsTheClientQuickly() {
  const Cluster cluster = MakeCluster(1, 1);
  auto ps = TaskProcess::Server(cluster.spec(), "ps", 0);
  auto worker = TaskProcess::Server(cluster.spec(), "worker", 0);
  QVERIFY(ps->waitUntilServing() && worker->waitUntilServing());
  auto graph = BuildCounterGraph(cluster, 0, {"counter"});
  auto session = OpenSession(cluster.target("worker", 0), graph->graph);
  QVERIFY2(session.ok(), StatusText(session.status()));
  QVERIFY(RunTarget(**session, graph->init).ok());

  // Steps run back to back while the ps is killed with SIGKILL (no goodbye on the wire).
  std::atomic<int> steps{0};
  std::atomic<bool> killed{false};
  Clock::time_point killed_at;
  auto loop = std::async(std::launch::async, [&]() -> Status {
    for (;;) {
      Status status = RunTarget(**session, graph->increments[0]);
      if (!status.ok()) return status;
      ++steps;
      if (killed && Clock::now() - killed_at > std::chrono::seconds(30)) return OkStatus();
    }
  });
  const bool stepping = QTest::qWaitFor(
      [&] { return steps >= 20 || loop.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }, 60000);
  killed_at = Clock::now();
  killed = true;
  ps->killHard();
  QVERIFY2(stepping && steps >= 20, "the steps did not get going before the kill");
  // A bound for a hang, not a speed: keepalive notices the dead link within seconds.
  QVERIFY2(loop.wait_for(std::chrono::seconds(60)) == std::future_status::ready, "the step loop hangs");
  const Status failed = loop.get();
  QVERIFY2(!failed.ok(), "steps went on without the ps");
  QVERIFY2(failed.code() == absl::StatusCode::kUnavailable || failed.code() == absl::StatusCode::kAborted ||
               failed.code() == absl::StatusCode::kCancelled,
           StatusText(failed));
  QVERIFY2(std::string(failed.message()).find("/job:ps/replica:0/task:0") != std::string::npos, StatusText(failed));

  // The worker keeps serving: it answers a new session at once, and a step that needs the
  // dead ps fails with the ps's name rather than hanging.
  QVERIFY(worker->running());
  auto again = OpenSession(cluster.target("worker", 0), graph->graph, /*wait_for_tasks_ms=*/1000);
  QVERIFY2(!again.ok(), "a session over a dead ps was created");
  QVERIFY2(std::string(again.status().message()).find(cluster.jobs.at("ps")[0]) != std::string::npos,
           StatusText(again.status()));
  QCOMPARE(worker->terminate(), 0);
}

void ClusterProcessesTest::psStartedAfterTheClientIsWaitedFor() {
  const Cluster cluster = MakeCluster(1, 1);
  auto worker = TaskProcess::Server(cluster.spec(), "worker", 0);
  QVERIFY(worker->waitUntilServing());
  auto graph = BuildCounterGraph(cluster, 0, {"counter"});
  QVERIFY(graph.ok());

  auto client = std::async(std::launch::async, [&]() -> StatusOr<float> {
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, OpenSession(cluster.target("worker", 0), graph->graph));
    CLAB_RETURN_IF_ERROR(RunTarget(*session, graph->init));
    CLAB_RETURN_IF_ERROR(RunTarget(*session, graph->increments[0]));
    return FetchFloat(*session, graph->total);
  });
  // The worker's master says, every 500 ms here, which task it still waits for.
  QVERIFY2(worker->waitForOutput("/job:ps/replica:0/task:0", 10000), qPrintable(worker->output()));
  QVERIFY(client.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout);
  auto ps = TaskProcess::Server(cluster.spec(), "ps", 0);
  QVERIFY(ps->waitUntilServing());
  QVERIFY2(client.wait_for(std::chrono::seconds(15)) == std::future_status::ready, "the client still waits");
  auto value = client.get();
  QVERIFY2(value.ok(), StatusText(value.status()));
  QCOMPARE(*value, 2.0f);
}

void ClusterProcessesTest::serverStopsCleanlyOnSignals_data() {
  // clang-format off
  QTest::addColumn<int>("signal");
  QTest::newRow("SIGTERM") << int(SIGTERM);
  QTest::newRow("SIGINT (Ctrl-C)") << int(SIGINT);
  // clang-format on
}

void ClusterProcessesTest::serverStopsCleanlyOnSignals() {
  QFETCH(int, signal);
  const Cluster cluster = MakeCluster(1, 1);
  auto ps = TaskProcess::Server(cluster.spec(), "ps", 0);
  QVERIFY(ps->waitUntilServing());
  ::kill(static_cast<pid_t>(ps->pid()), signal);
  QCOMPARE(ps->waitForExit(10000), 0);
  const QString output = ps->output();
  QVERIFY2(output.contains(
               QString("Received %1, stopping /job:ps/replica:0/task:0").arg(signal == SIGINT ? "SIGINT" : "SIGTERM")),
           qPrintable(output));
  QVERIFY2(output.contains("Server /job:ps/replica:0/task:0 stopped."), qPrintable(output));
  // The port is free again: a new server takes it at once.
  auto again = TaskProcess::Server(cluster.spec(), "ps", 0);
  QVERIFY2(again->waitUntilServing(), qPrintable(again->output()));
  QCOMPARE(again->terminate(), 0);
}

void ClusterProcessesTest::portInUseIsNamed() {
  const Cluster cluster = MakeCluster(1, 1);
  auto first = TaskProcess::Server(cluster.spec(), "ps", 0);
  QVERIFY(first->waitUntilServing());
  auto second = TaskProcess::Server(cluster.spec(), "ps", 0);
  QCOMPARE(second->waitForExit(10000), 1);
  const QString output = second->output();
  QVERIFY2(output.contains("/job:ps/replica:0/task:0"), qPrintable(output));
  QVERIFY2(output.contains(QString::fromStdString(cluster.jobs.at("ps")[0])), qPrintable(output));
  QVERIFY2(output.contains("already in use"), qPrintable(output));
  QVERIFY(first->running());
}

void ClusterProcessesTest::seedProgramAsTwoProcesses() {
  const Cluster cluster = MakeCluster(1, 1);
  const QStringList common{"--cluster=" + cluster.spec(), "--task_index=0", "--last_step=2"};
  TaskProcess ps("seed_distributed", QStringList{"--job_name=ps"} + common);
  TaskProcess worker("seed_distributed", QStringList{"--job_name=worker"} + common);
  const int exit_code = worker.waitForExit(30000);
  const QString out = worker.output();
  QVERIFY2(exit_code == 0,
           qPrintable(QString("exit %1, crashed: %2\n%3").arg(exit_code).arg(worker.crashed()).arg(out)));
  QCOMPARE(out.count("[[20]]"), 2);
  for (const char* line : {"x: (VariableV2): /job:ps/replica:0/task:0/device:CPU:0",
                           "w: (VariableV2): /job:ps/replica:0/task:0/device:CPU:0",
                           "w/Assign: (Assign): /job:ps/replica:0/task:0/device:CPU:0",
                           "MatMul: (MatMul): /job:worker/replica:0/task:0/device:CPU:0"})
    QVERIFY2(out.contains(line), qPrintable(QString("%1 missing from:\n%2").arg(line, out)));
  QCOMPARE(ps.terminate(), 0);
  QVERIFY(ps.output().contains("Received SIGTERM"));
}

void ClusterProcessesTest::demoRunsPsAndWorkerProcesses() {
  const ProgramResult result = ClabProcess::clab({"demo", "--last_step", "2"});
  QVERIFY2(result.exitCode == 0, qPrintable(result.out + result.err));
  const QStringList lines = result.outLines();
  QCOMPARE(lines.count("[worker/0] [[20]]"), 2);
  QVERIFY2(lines.contains("[worker/0] x: (VariableV2): /job:ps/replica:0/task:0/device:CPU:0"), qPrintable(result.out));
  QVERIFY2(lines.contains("[worker/0] MatMul: (MatMul): /job:worker/replica:0/task:0/device:CPU:0"),
           qPrintable(result.out));
  QVERIFY2(result.out.contains("[ps/0]     Received SIGTERM, stopping /job:ps/replica:0/task:0"),
           qPrintable(result.out));
  QVERIFY(result.out.contains("Both tasks ended cleanly"));
}

void ClusterProcessesTest::demoCheckpointsAreListedAndShown() {
  QTemporaryDir dir;
  const QString path = dir.path();
  const ProgramResult demo = ClabProcess::clab({"demo", "--last_step", "250", "--checkpoint_dir", path});
  QVERIFY2(demo.exitCode == 0, qPrintable(demo.out.right(3000) + demo.err));
  QVERIFY(demo.out.contains("Stopped at global step 250"));

  const ProgramResult ls = ClabProcess::clab({"ckpt", "ls", path});
  QVERIFY2(ls.exitCode == 0, qPrintable(ls.err));
  QVERIFY2(ls.out.contains(QRegularExpression("\\n250 +model\\.ckpt-250 +\\S+ \\S+ +ok, 3 tensors \\(latest\\)")),
           qPrintable(ls.out));

  const ProgramResult show = ClabProcess::clab({"ckpt", "show", path});
  QVERIFY2(show.exitCode == 0, qPrintable(show.err));
  QVERIFY2(show.out.contains(QRegularExpression("\\nglobal_step +int64 +\\[\\] +8 +250")), qPrintable(show.out));
  QVERIFY2(show.out.contains(QRegularExpression("\\nx +int32 +\\[1,4\\] +16 ")), qPrintable(show.out));
  QVERIFY2(show.out.contains(QRegularExpression("\\nw +int32 +\\[4,1\\] +16 ")), qPrintable(show.out));

  // The step counter's rate near steps 100 and 200, and the session log, in the event file.
  const ProgramResult events = ClabProcess::clab({"events", path});
  QVERIFY2(events.exitCode == 0, qPrintable(events.err));
  QVERIFY2(events.out.contains(QRegularExpression("\\n20\\d +\\S+ \\S+ +global_step/sec +\\d")),
           qPrintable(events.out));
  QVERIFY2(events.out.contains("CHECKPOINT"), qPrintable(events.out));

  // A damaged checkpoint is named as such; show reports DATA_LOSS with the file.
  QFile data(path + "/model.ckpt-250.data-00000-of-00001");
  QVERIFY(data.resize(5));
  const ProgramResult damaged = ClabProcess::clab({"ckpt", "ls", path});
  QVERIFY2(damaged.out.contains("DAMAGED"), qPrintable(damaged.out));
  // ... and the exit status says so, for scripts.
  QCOMPARE(damaged.exitCode, 1);
  QVERIFY2(damaged.err.contains("damaged or missing"), qPrintable(damaged.err));
  const ProgramResult shown = ClabProcess::clab({"ckpt", "show", path + "/model.ckpt-250"});
  QCOMPARE(shown.exitCode, 1);
  QVERIFY2(shown.err.startsWith("clab: ") && shown.err.contains("model.ckpt-250"), qPrintable(shown.err));
}

void ClusterProcessesTest::watchPrintsATasksEvents() {
  const Cluster cluster = MakeCluster(1, 1);
  auto ps = TaskProcess::Server(cluster.spec(), "ps", 0);
  QVERIFY(ps->waitUntilServing());
  const QString target = QString::fromStdString(cluster.target("ps", 0));
  const ProgramResult watch = ClabProcess::clab({"watch", target, "--no_follow"});
  QVERIFY2(watch.exitCode == 0, qPrintable(watch.err));
  const QStringList lines = watch.outLines();
  QVERIFY2(lines.value(0).startsWith("/job:ps/replica:0/task:0 (ClusterLab "), qPrintable(watch.out));
  QVERIFY2(lines.value(0).contains("state LISTENING, devices: /job:ps/replica:0/task:0/device:CPU:0"),
           qPrintable(watch.out));
  QVERIFY2(watch.out.contains(QRegularExpression("\\n\\[\\d+\\] [0-9:.]+ state LISTENING: listening at grpc://")),
           qPrintable(watch.out));
  QCOMPARE(ps->terminate(), 0);

  const ProgramResult nobody = ClabProcess::clab({"watch", target, "--no_follow"});
  QCOMPARE(nobody.exitCode, 1);
  QVERIFY2(nobody.err.startsWith("clab: no task answers at " + target), qPrintable(nobody.err));
}

void ClusterProcessesTest::trainRunsAProjectOnProcesses() {
  const QString project = ClabProcess::sourceDir() + "/examples/projects/digits-mlp.clab";
  const ProgramResult result = ClabProcess::clab({"train", project, "--last_step", "600", "--workers", "2"}, 120000);
  QVERIFY2(result.exitCode == 0, qPrintable(result.out.right(3000) + result.err));
  QVERIFY2(result.out.contains("[worker/1] "), qPrintable(result.out.right(2000)));
  QVERIFY(result.out.contains("[ps/0]     Received SIGTERM"));
  const QRegularExpression accuracy("\\nworker/(\\d): Worker \\d ran \\d+ steps; held-out accuracy ([0-9.]+)");
  int found = 0;
  for (auto match = accuracy.globalMatch(result.out); match.hasNext();) {
    const double value = match.next().captured(2).toDouble();
    QVERIFY2(value >= 0.85, qPrintable(result.out.right(500)));
    ++found;
  }
  QCOMPARE(found, 2);
  // A project field of the wrong type is named.
  QTemporaryDir dir;
  QFile bad(dir.filePath("bad.clab"));
  QVERIFY(bad.open(QIODevice::WriteOnly));
  bad.write(R"({"format": "clusterlab-project", "program": "digits-mlp", "cluster": {"ps": ["h:1"], "worker": ["h:2"]},
               "run": {"last_step": "many"}})");
  bad.close();
  const ProgramResult wrong = ClabProcess::clab({"train", dir.filePath("bad.clab")});
  QCOMPARE(wrong.exitCode, 1);
  QVERIFY2(wrong.err.contains("bad.clab: run.last_step: wants a whole number"), qPrintable(wrong.err));
  // The seed is not a training model: one clear line.
  const ProgramResult seed = ClabProcess::clab({"train", ClabProcess::sourceDir() + "/examples/projects/seed.clab"});
  QCOMPARE(seed.exitCode, 1);
  QVERIFY2(seed.err.contains("program 'seed' is not a training model"), qPrintable(seed.err));
}

QTEST_GUILESS_MAIN(ClusterProcessesTest)
#include "tst_cluster_processes.moc"
