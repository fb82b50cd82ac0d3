// Simulations played by SimGrid: the same configuration gives the same numbers; a slow worker
// holds synchronous training back; a ps's NIC saturates as workers are added and is named as
// the bottleneck; a thousand workers and fifty ps complete; bad platforms are named.
#include "ExampleProjects.h"
#include "StatusText.h"
#include "calibration/Calibration.h"
#include "platform/PlatformSpec.h"
#include "project/SimProject.h"
#include "run/Simulator.h"

#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace clab;
using namespace clab::sim;
using clab::testing::StatusText;

namespace {

SimProject Project(const char* name) { return clab::sim::testing::ExampleProject(name); }

PlatformSpec Platform(const char* json) {
  StatusOr<PlatformSpec> spec = PlatformSpec::FromJsonText(json, "test platform");
  if (!spec.ok()) qFatal("%s", StatusText(spec.status()));
  return *spec;
}

SimulationResult Run(Simulator& simulator, SimulationConfig config) {
  StatusOr<SimulationResult> result = simulator.Run(config);
  if (!result.ok()) qFatal("%s", StatusText(result.status()));
  return *result;
}

}  // namespace

class SimRunTest : public QObject {
  Q_OBJECT

 private slots:
  void sameConfigurationSameNumbers() {
    Simulator simulator(Project("digits-mlp.clab"), PlatformSpec::Default(), Calibration::Uncalibrated());
    SimulationConfig config;
    config.workers = 6;
    config.ps = 2;
    config.steps = 30;
    config.seed = 11;
    const SimulationResult first = Run(simulator, config);
    const SimulationResult second = Run(simulator, config);
    QVERIFY(first.total_steps_per_second > 0);
    QCOMPARE(first.total_steps_per_second, second.total_steps_per_second);
    QCOMPARE(first.simulated_seconds, second.simulated_seconds);
    QCOMPARE(first.workers.size(), size_t{6});
    for (size_t i = 0; i < first.workers.size(); ++i) {
      QCOMPARE(first.workers[i].steps_per_second, second.workers[i].steps_per_second);
      QCOMPARE(first.workers[i].waiting, second.workers[i].waiting);
    }
    QCOMPARE(first.resources.size(), second.resources.size());
    for (size_t i = 0; i < first.resources.size(); ++i) QCOMPARE(first.resources[i].mean, second.resources[i].mean);
    QCOMPARE(first.trace.size(), second.trace.size());
    // Another seed draws other jitter.
    config.seed = 12;
    QVERIFY(Run(simulator, config).total_steps_per_second != first.total_steps_per_second);
  }

  void breakdownAddsUpToTheStep() {
    Simulator simulator(Project("digits-mlp.clab"), PlatformSpec::Default(), Calibration::Uncalibrated());
    SimulationConfig config;
    config.workers = 2;
    config.steps = 20;
    const SimulationResult result = Run(simulator, config);
    for (const WorkerSteps& w : result.workers) {
      QVERIFY(w.compute > 0 && w.transfer > 0 && w.waiting >= 0);
      QVERIFY(w.steps_per_second > 0);
    }
    QVERIFY(!result.trace.empty());
    QVERIFY(!result.bottleneck.empty());
  }

  void aSlowWorkerHoldsSynchronousTrainingBack() {
    // Three workers on fast links; worker 1's host is a fifth as fast as the others.
    const PlatformSpec platform = Platform(R"({
      "host": {"cores": 8, "speed": 1.0}, "link": {"bandwidth": "100Gbps", "latency": "5us"},
      "hosts": [{"name": "slow", "cores": 8, "speed": 0.2}],
      "tasks": {"/job:worker/task:1": "slow"}})");
    Simulator simulator(Project("digits-mlp.clab"), platform, Calibration::Uncalibrated());
    SimulationConfig config;
    config.workers = 3;
    config.steps = 30;
    const SimulationResult async = Run(simulator, config);
    config.sync = true;
    const SimulationResult sync = Run(simulator, config);
    QVERIFY2(
        sync.total_steps_per_second < async.total_steps_per_second,
        qPrintable(QString("sync %1, async %2").arg(sync.total_steps_per_second).arg(async.total_steps_per_second)));
    // Asynchronous workers go at their own pace; synchronous ones at the slowest's.
    QVERIFY(async.workers[0].steps_per_second > 2 * async.workers[1].steps_per_second);
    QVERIFY(std::abs(sync.workers[0].steps_per_second - sync.workers[1].steps_per_second) <
            0.05 * sync.workers[1].steps_per_second);
    QVERIFY2(sync.bottleneck.find("worker 1") != std::string::npos, sync.bottleneck.c_str());
  }

  void onePsNicSaturatesAsWorkersGrow() {
    const PlatformSpec platform = Platform(R"({"link": {"bandwidth": "100Mbps", "latency": "50us"}})");
    Simulator simulator(Project("digits-mlp.clab"), platform, Calibration::Uncalibrated());
    SimulationConfig config;
    config.steps = 20;
    config.workers = 1;
    const SimulationResult one = Run(simulator, config);
    config.workers = 16;
    const SimulationResult many = Run(simulator, config);
    const ResourceLoad* nic_one = one.FindResource("ps-0 NIC out");
    const ResourceLoad* nic_many = many.FindResource("ps-0 NIC out");
    QVERIFY(nic_one && nic_many);
    // One worker leaves the NIC idle while it computes and sends gradients; sixteen keep it
    // busy.
    QVERIFY2(nic_many->mean > 0.8, qPrintable(QString::number(nic_many->mean)));
    QVERIFY(nic_many->mean > 1.5 * nic_one->mean);
    // Per worker, each step is slower; in total, the NIC's rate bounds the cluster.
    QVERIFY(many.workers[0].steps_per_second < one.workers[0].steps_per_second);
    QCOMPARE(many.bottleneck_resource, std::string("ps-0 NIC out"));
    QVERIFY2(many.bottleneck.find("ps 0's NIC") != std::string::npos, many.bottleneck.c_str());
    QVERIFY2(many.bottleneck.find("hidden1/weights") != std::string::npos, many.bottleneck.c_str());
    // With 4 ps the weights spread, and the busiest NIC carries less than all the bytes.
    config.ps = 4;
    const SimulationResult spread = Run(simulator, config);
    QVERIFY(spread.total_steps_per_second >= many.total_steps_per_second * 0.95);
  }

  void aThousandWorkersAndFiftyPsComplete() {
    Simulator simulator(Project("seed.clab"), PlatformSpec::Default(), Calibration::Uncalibrated());
    SimulationConfig config;
    config.workers = 1000;
    config.ps = 50;
    config.steps = 100;
    const SimulationResult result = Run(simulator, config);
    QCOMPARE(result.workers.size(), size_t{1000});
    for (const WorkerSteps& w : result.workers) QCOMPARE(w.steps, int64_t{100});
    QVERIFY(result.total_steps_per_second > 0);
  }

  void badPlatformsAreNamed() {
    // A task bound to a host the platform does not have.
    Simulator unknown(Project("seed.clab"),
                      Platform(R"({"hosts": [{"name": "a"}], "tasks": {"/job:worker/)"
                               "*"
                               R"(": "a"}})"),
                      Calibration::Uncalibrated());
    SimulationConfig config;
    config.steps = 5;
    QVERIFY(unknown.Run(config).ok());
    StatusOr<PlatformSpec> missing =
        PlatformSpec::FromJsonText(R"({"topology": "xml", "xml": "/nonexistent/cluster.xml"})", "p.json");
    QVERIFY(!missing.ok());
    QVERIFY2(std::string(missing.status().message()).find("/nonexistent/cluster.xml") != std::string::npos,
             StatusText(missing.status()));
    // An XML file SimGrid cannot read: the simulation's process says so, and this one lives.
    const std::string path = (std::filesystem::temp_directory_path() / "clab-sim-test-broken.xml").string();
    { std::ofstream(path) << "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\"><host id=\"h\"\n"; }
    StatusOr<PlatformSpec> broken = PlatformSpec::FromFile(path);
    QVERIFY2(broken.ok(), StatusText(broken.status()));
    Simulator simulator(Project("seed.clab"), *broken, Calibration::Uncalibrated());
    StatusOr<SimulationResult> result = simulator.Run(config);
    std::filesystem::remove(path);
    QVERIFY(!result.ok());
    QVERIFY2(std::string(result.status().message()).find("simulation") != std::string::npos,
             StatusText(result.status()));
    // An XML platform whose hosts the tasks name.
    const std::string good = (std::filesystem::temp_directory_path() / "clab-sim-test-good.xml").string();
    {
      std::ofstream(good) << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                             "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n"
                             "<host id=\"a\" speed=\"1Gf\" core=\"4\"/><host id=\"b\" speed=\"1Gf\" core=\"4\"/>\n"
                             "<link id=\"l\" bandwidth=\"1GBps\" latency=\"10us\"/>\n"
                             "<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route></zone></platform>\n";
    }
    Simulator xml(Project("seed.clab"), *PlatformSpec::FromFile(good), Calibration::Uncalibrated());
    StatusOr<SimulationResult> ran = xml.Run(config);
    std::filesystem::remove(good);
    QVERIFY2(ran.ok(), StatusText(ran.status()));
    QVERIFY(ran->total_steps_per_second > 0);
  }

  void impossibleConfigurationsAreRefused() {
    Simulator simulator(Project("seed.clab"), PlatformSpec::Default(), Calibration::Uncalibrated());
    SimulationConfig config;
    config.workers = 0;
    StatusOr<SimulationResult> result = simulator.Run(config);
    QVERIFY(!result.ok());
    QVERIFY2(std::string(result.status().message()).find("workers: 0") != std::string::npos,
             StatusText(result.status()));
  }
};

QTEST_APPLESS_MAIN(SimRunTest)
#include "tst_sim_run.moc"
