// Only the umbrella header (and QtTest): everything an API user needs for the seed program,
// a training loop with hooks, a cluster and a compiled step comes through clab/clab.h.
#include "clab/clab.h"

#include <QtTest>

class UmbrellaHeaderTest : public QObject {
  Q_OBJECT

 private slots:
  void seedProgramRunsLocally() {
    clab::GraphBuilder g;
    auto x = clab::ops::MakeVariable(g, clab::ops::Const(g, clab::Tensor::Matrix<int32_t>({{1, 2, 3, 4}})), "x");
    auto w = clab::ops::MakeVariable(g, clab::ops::Const(g, clab::Tensor::Matrix<int32_t>({{2}, {2}, {2}, {2}})), "w");
    const clab::Output product = clab::ops::MatMul(g, x.read, w.read);
    const clab::Output init = clab::ops::GlobalVariablesInitializer(g);
    QVERIFY(g.status().ok());
    auto session = clab::NewSession({});
    QVERIFY(session.ok());
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<clab::Tensor> out;
    QVERIFY((*session)->Run({}, {}, {init.node()}, &out).ok());
    QVERIFY((*session)->Run({}, {product.name()}, {}, &out).ok());
    QCOMPARE(out.at(0).DebugString(), std::string("[[20]]"));
    QVERIFY(!std::string(CLAB_VERSION).empty());
  }

  void trainingLoopStopsAtItsLastStep() {
    clab::GraphBuilder g;
    const clab::Output global_step = clab::GetOrCreateGlobalStep(g);
    auto v = clab::ops::MakeVariable(g, clab::ops::Const(g, clab::Tensor::Scalar<float>(3.0f)), "v");
    const clab::Output loss = clab::ops::Mul(g, v.read, v.read, "loss");
    auto train = clab::GradientDescentOptimizer(0.1).Minimize(g, loss, global_step);
    QVERIFY(train.ok());
    clab::MonitoredTrainingSessionOptions options;
    options.hooks.push_back(std::make_shared<clab::StopAtStepHook>(clab::StopAtStepHook::LastStep(5)));
    auto session = clab::MonitoredTrainingSession(g, options);
    QVERIFY2(session.ok(), std::string(session.status().message()).c_str());
    std::vector<clab::Tensor> out;
    int runs = 0;
    while (!(*session)->should_stop() && runs < 100) {
      const clab::Status ran = (*session)->Run({train->node()}, {}, &out);
      QVERIFY2(ran.ok(), std::string(ran.message()).c_str());
      ++runs;
    }
    QCOMPARE(runs, 5);
    QVERIFY((*session)->Close().ok());
  }

  void stepCompilesForTwoTasks() {
    auto cluster = clab::ClusterSpec::FromDict({{"ps", {"127.0.0.1:2222"}}, {"worker", {"127.0.0.1:2223"}}});
    QVERIFY(cluster.ok());
    clab::ReplicaDeviceSetterOptions setter;
    setter.cluster = {{"ps", {"127.0.0.1:2222"}}, {"worker", {"127.0.0.1:2223"}}};
    setter.worker_device = "/job:worker/task:0";
    auto device_function = clab::ReplicaDeviceSetter(setter);
    QVERIFY(device_function.ok());
    clab::GraphBuilder g;
    {
      auto scope = g.WithDevice(*device_function);
      auto w = clab::ops::MakeVariable(g, clab::ops::Const(g, clab::Tensor::Vector<float>({1, 2})), "w");
      clab::ops::Identity(g, w.read, "out");
    }
    clab::CompileOptions options;
    for (const std::string& task : {"/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0"})
      options.devices.push_back({task + "/device:CPU:0", "CPU"});
    options.placer.default_device = "/job:worker/replica:0/task:0";
    options.placer.log = [](const std::string&) {};
    options.describe_transfers = true;
    auto step = clab::CompileStep(g.graph_def(), {{}, {"out"}, {}}, options);
    QVERIFY2(step.ok(), std::string(step.status().message()).c_str());
    QCOMPARE((*step)->partitions.size(), size_t{2});
    QCOMPARE((*step)->transfers.size(), size_t{1});
    QCOMPARE((*step)->transfers[0].bytes, int64_t{8});
  }
};

QTEST_APPLESS_MAIN(UmbrellaHeaderTest)
#include "tst_umbrella_header.moc"
