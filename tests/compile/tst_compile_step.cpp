// The one compile pipeline (clab/compile/CompileStep.h) that the local session, the master,
// the teaching walkthrough and the simulator share: the signature key, partitions per task
// and per device, routes of fed and fetched tensors, the _Send/_Recv pairs with their bytes,
// the errors that name what is missing, stateful nodes that stay where they went, and the
// plan cache.
#include "StatusText.h"

#include "clab/compile/CompileStep.h"
#include "clab/compile/PlanCache.h"
#include "clab/compile/StepRoutes.h"
#include "clab/compile/StepSignature.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"

#include <QtTest>

#include <algorithm>

using namespace clab;
using namespace clab::testing;

namespace {

const std::string kPs = "/job:ps/replica:0/task:0";
const std::string kWorker = "/job:worker/replica:0/task:0";

// The seed program with its variables on the ps: x . w on the worker.
tensorflow::GraphDef SeedOnPsAndWorker() {
  GraphBuilder g;
  ops::Variable x, w;
  {
    auto scope = g.WithDevice("/job:ps/task:0");
    x = ops::MakeVariable(g, ops::Const(g, Tensor::Matrix<int32_t>({{1, 2, 3, 4}}), "x/initial_value"), "x");
    w = ops::MakeVariable(g, ops::Const(g, Tensor::Matrix<int32_t>({{2}, {2}, {2}, {2}}), "w/initial_value"), "w");
  }
  {
    auto scope = g.WithDevice("/job:worker/task:0");
    ops::MatMul(g, x.read, w.read, false, false, "MatMul");
  }
  ops::GlobalVariablesInitializer(g, "init");
  if (!g.status().ok()) qFatal("%s", StatusText(g.status()));
  return g.graph_def();
}

CompileOptions ClusterOptions() {
  CompileOptions options;
  options.devices = {{kWorker + "/device:CPU:0", "CPU"}, {kPs + "/device:CPU:0", "CPU"}};
  options.placer.default_device = kWorker;
  options.placer.log = [](const std::string&) {};
  options.partition_by = PartitionBy::kTask;
  options.describe_transfers = true;
  return options;
}

}  // namespace

class CompileStepTest : public QObject {
  Q_OBJECT

 private slots:
  void keyIgnoresOrderButNotRoles() {
    const StepSignature a{{"p", "q"}, {"y", "z:0"}, {"train"}};
    const StepSignature b{{"q", "p"}, {"z:0", "y"}, {"train"}};
    QCOMPARE(a.Key(), b.Key());
    QCOMPARE(a.Key(), StepSignature::Key({"q", "p"}, {"y", "z:0"}, {"train"}));
    // A name fed is not the same name fetched.
    const StepSignature fed{{"y"}, {}, {}}, fetched{{}, {"y"}, {}}, run{{}, {}, {"y"}};
    QVERIFY(fed.Key() != fetched.Key());
    QVERIFY(fetched.Key() != run.Key());
  }

  void partitionsPerTaskWithTheirTransfers() {
    const tensorflow::GraphDef graph = SeedOnPsAndWorker();
    auto step = CompileStep(graph, {{}, {"MatMul:0"}, {}}, ClusterOptions());
    QVERIFY2(step.ok(), StatusText(step.status()));
    QCOMPARE(step.value()->partitions.size(), size_t{2});
    const int ps = step.value()->PartitionIndex(kPs);
    const int worker = step.value()->PartitionIndex(kWorker);
    QVERIFY(ps >= 0 && worker >= 0);
    // Pruned: the initialiser is not part of this step.
    QVERIFY(step.value()->placed->FindNode("MatMul") != nullptr);
    QVERIFY(step.value()->placed->FindNode("init") == nullptr);
    QCOMPARE(step.value()->placed->FindNode("x")->assigned_device(), kPs + "/device:CPU:0");
    // The fetch is the worker's.
    const auto route = step.value()->routes.fetch_routes.at("MatMul:0");
    QCOMPARE(route.partition, worker);
    QCOMPARE(step.value()->routes.fetches[static_cast<size_t>(worker)], std::vector<std::string>{"MatMul:0"});
    // x and w cross from the ps to the worker: 16 bytes each (int32 1x4 and 4x1), in one
    // packed message or two.
    int64_t bytes = 0;
    std::vector<std::string> carried;
    for (const CompiledStep::Transfer& transfer : step.value()->transfers) {
      QCOMPARE(transfer.from, ps);
      QCOMPARE(transfer.to, worker);
      QVERIFY(!transfer.recv_node.empty());
      QVERIFY(transfer.recv_device.rfind(kWorker, 0) == 0);
      bytes += transfer.bytes;
      if (transfer.packed.empty()) carried.push_back(transfer.tensor);
      carried.insert(carried.end(), transfer.packed.begin(), transfer.packed.end());
    }
    QCOMPARE(bytes, int64_t{32});
    std::sort(carried.begin(), carried.end());
    QCOMPARE(carried, (std::vector<std::string>{"w/read:0", "x/read:0"}));
  }

  void partitionsPerDeviceInOneTask() {
    GraphBuilder g;
    Output c;
    {
      auto scope = g.WithDevice("/device:CPU:1");
      c = ops::Const(g, Tensor::Scalar<float>(2.5f), "c");
    }
    {
      auto scope = g.WithDevice("/device:CPU:0");
      ops::Identity(g, c, "y");
    }
    QVERIFY(g.status().ok());
    const std::string task = "/job:localhost/replica:0/task:0";
    CompileOptions options;
    options.devices = {{task + "/device:CPU:0", "CPU"}, {task + "/device:CPU:1", "CPU"}};
    options.placer.log = [](const std::string&) {};
    options.partition_by = PartitionBy::kDevice;
    options.describe_transfers = true;
    auto step = CompileStep(g.graph_def(), {{}, {"y"}, {}}, options);
    QVERIFY2(step.ok(), StatusText(step.status()));
    QCOMPARE(step.value()->partitions.size(), size_t{2});
    QCOMPARE(step.value()->routes.fetch_routes.at("y").partition, step.value()->PartitionIndex(task + "/device:CPU:0"));
    QCOMPARE(step.value()->transfers.size(), size_t{1});
    QCOMPARE(step.value()->transfers[0].tensor, std::string("c:0"));
    QCOMPARE(step.value()->transfers[0].bytes, int64_t{4});
  }

  void oneTensorUnderTwoNamesIsFetchedOnce() {
    auto step = CompileStep(SeedOnPsAndWorker(), {{}, {"MatMul", "MatMul:0", "MatMul"}, {}}, ClusterOptions());
    QVERIFY2(step.ok(), StatusText(step.status()));
    QCOMPARE(step.value()->signature.fetches, (std::vector<std::string>{"MatMul", "MatMul:0"}));
    const auto& routes = step.value()->routes;
    QCOMPARE(routes.fetch_routes.at("MatMul").partition, routes.fetch_routes.at("MatMul:0").partition);
    QCOMPARE(routes.fetch_routes.at("MatMul").index, routes.fetch_routes.at("MatMul:0").index);
    QCOMPARE(routes.fetches[static_cast<size_t>(routes.fetch_routes.at("MatMul").partition)].size(), size_t{1});
  }

  void errorsNameWhatIsWrong_data() {
    // clang-format off
    QTest::addColumn<QStringList>("feeds");
    QTest::addColumn<QStringList>("fetches");
    QTest::addColumn<QStringList>("targets");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    const int not_found = static_cast<int>(absl::StatusCode::kNotFound);
    const int invalid = static_cast<int>(absl::StatusCode::kInvalidArgument);
    QTest::newRow("unknown fetch") << QStringList{} << QStringList{"nope"} << QStringList{} << not_found
                                   << "Fetch 'nope' is not in the graph: there is no node named 'nope'";
    QTest::newRow("output out of range") << QStringList{} << QStringList{"MatMul:1"} << QStringList{} << not_found
                                         << "node 'MatMul' (MatMul) has 1 output(s)";
    QTest::newRow("unknown target") << QStringList{} << QStringList{} << QStringList{"^ghost"} << not_found
                                    << "Target '^ghost' is not in the graph";
    QTest::newRow("fed twice") << QStringList{"x/read", "x/read:0"} << QStringList{"MatMul"} << QStringList{}
                               << invalid << "'x/read:0' is fed more than once";
    // clang-format on
  }
  void errorsNameWhatIsWrong() {
    QFETCH(QStringList, feeds);
    QFETCH(QStringList, fetches);
    QFETCH(QStringList, targets);
    QFETCH(int, code);
    QFETCH(QString, message);
    StepSignature signature;
    for (const QString& name : feeds) signature.feeds.push_back(name.toStdString());
    for (const QString& name : fetches) signature.fetches.push_back(name.toStdString());
    for (const QString& name : targets) signature.targets.push_back(name.toStdString());
    auto step = CompileStep(SeedOnPsAndWorker(), signature, ClusterOptions());
    QVERIFY(!step.ok());
    QCOMPARE(static_cast<int>(step.status().code()), code);
    QVERIFY2(QString::fromStdString(std::string(step.status().message())).contains(message), StatusText(step.status()));
  }

  void statefulNodesStayWhereTheyWent() {
    GraphBuilder g;
    ops::Variable v = ops::MakeVariable(g, ops::Const(g, Tensor::Scalar<float>(1.0f)), "v");
    ops::Identity(g, v.read, "out");
    QVERIFY(g.status().ok());
    std::map<std::string, std::string> stateful = {{"v", kPs + "/device:CPU:0"}};
    CompileOptions options = ClusterOptions();
    options.stateful_placement = &stateful;
    auto step = CompileStep(g.graph_def(), {{}, {"out"}, {}}, options);
    QVERIFY2(step.ok(), StatusText(step.status()));
    // Nothing asks for the ps, but that is where the variable's state lives.
    QCOMPARE(step.value()->placed->FindNode("v")->assigned_device(), kPs + "/device:CPU:0");
    QCOMPARE(step.value()->placed->FindNode("out")->assigned_device(), kWorker + "/device:CPU:0");
    QCOMPARE(stateful.at("v"), kPs + "/device:CPU:0");
  }

  void aNodeTwoPartitionsHoldGoesToTheFirst() {
    tensorflow::GraphDef first, second;
    first.add_node()->set_name("v");
    second.add_node()->set_name("v");
    second.add_node()->set_name("apply");
    auto routes = RouteStep({{"v:0"}, {"v"}, {"apply"}}, {&first, &second});
    QVERIFY2(routes.ok(), StatusText(routes.status()));
    QCOMPARE(routes->feed_routes.at("v:0").partition, 0);
    QCOMPARE(routes->fetch_routes.at("v").partition, 0);
    QCOMPARE(routes->targets[1], std::vector<std::string>{"apply"});
    QVERIFY(routes->targets[0].empty());
  }

  void planCacheKeepsTheFirstPlan() {
    PlanCache<int> cache;
    QVERIFY(cache.Find("k") == nullptr);
    const auto first = cache.Insert("k", std::make_shared<const int>(1));
    const auto second = cache.Insert("k", std::make_shared<const int>(2));
    QCOMPARE(*first, 1);
    QCOMPARE(second.get(), first.get());
    QCOMPARE(*cache.Find("k"), 1);
    const auto taken = cache.TakeAll();
    QCOMPARE(taken.size(), size_t{1});
    QCOMPARE(cache.size(), size_t{0});
    // A plan handed out outlives the cache's hold on it.
    QCOMPARE(*first, 1);
  }
};

QTEST_APPLESS_MAIN(CompileStepTest)
#include "tst_compile_step.moc"
