// A project's step as the simulator sees it: compiled by the engine's pipeline (the bytes of
// each Send/Recv pair are the partitioned graph's tensor sizes) and modelled as the calls the
// engine makes.
#include "ExampleProjects.h"
#include "StatusText.h"
#include "calibration/Calibration.h"
#include "calibration/CalibrationFit.h"
#include "model/StepGraph.h"
#include "model/StepModel.h"
#include "model/StepPlan.h"
#include "project/SimProject.h"
#include "run/Simulator.h"

#include <QtTest>

#include <cmath>
#include <cstdlib>
#include <map>

using namespace clab;
using namespace clab::sim;
using clab::testing::StatusText;

namespace {

std::string ProjectPath(const char* name) { return clab::sim::testing::ExampleProjectPath(name); }

// Bytes of every variable of the graph, by the ps task it is placed on (its device).
std::map<std::string, int64_t> VariableBytesByTask(const tensorflow::GraphDef& graph) {
  std::map<std::string, int64_t> bytes;
  for (const auto& node : graph.node()) {
    if (node.op() != "VariableV2" || node.name() == "global_step") continue;
    int64_t elements = 1;
    for (const auto& dim : node.attr().at("shape").shape().dim()) elements *= dim.size();
    const std::string task = node.device().substr(0, node.device().find("/device:"));
    bytes[task] += elements * 4;  // float32
  }
  return bytes;
}

std::string Canonical(const std::string& device) {
  // "/job:ps/task:1" -> "/job:ps/replica:0/task:1"
  const size_t at = device.find("/task:");
  return device.substr(0, at) + "/replica:0" + device.substr(at);
}

}  // namespace

class SimModelTest : public QObject {
  Q_OBJECT

 private slots:
  void bytesPerPairAreTheVariablesSizes_data() {
    QTest::addColumn<int>("ps");
    QTest::newRow("one ps") << 1;
    QTest::newRow("two ps") << 2;
    QTest::newRow("four ps") << 4;
  }
  void bytesPerPairAreTheVariablesSizes() {
    QFETCH(int, ps);
    StatusOr<SimProject> project = SimProject::Load(ProjectPath("digits-mlp.clab"));
    QVERIFY2(project.ok(), StatusText(project.status()));
    StatusOr<StepGraph> graph = BuildStepGraph(*project, {{"ps", ps}, {"worker", 2}});
    QVERIFY2(graph.ok(), StatusText(graph.status()));
    Simulator simulator(*project, PlatformSpec::Default(), Calibration::Uncalibrated());
    StatusOr<const StepPlan*> step = simulator.Plan(2, ps);
    QVERIFY2(step.ok(), StatusText(step.status()));
    const std::string worker = "/job:worker/replica:0/task:0";
    int64_t total = 0;
    // Each ps sends the worker its weights and receives their gradients: both the sizes of
    // the trainable variables placed on it (64x128 + 128 + 128x10 + 10 floats in all).
    for (const auto& [device, bytes] : VariableBytesByTask(graph->graph)) {
      const std::string task = Canonical(device);
      QCOMPARE((*step)->BytesBetween(task, worker), bytes);
      QCOMPARE((*step)->BytesBetween(worker, task), bytes);
      total += bytes;
    }
    QCOMPARE(total, int64_t{(64 * 128 + 128 + 128 * 10 + 10) * 4});
    // What crosses between two ps is a control edge's dummy, no data.
    for (const PlanTransfer& t : (*step)->transfers)
      if (t.from_task != worker && t.to_task != worker) QVERIFY(t.bytes <= 4);
  }

  void onePsStepIsTwoCalls() {
    StatusOr<SimProject> project = SimProject::Load(ProjectPath("digits-mlp.clab"));
    QVERIFY2(project.ok(), StatusText(project.status()));
    Simulator simulator(*project, PlatformSpec::Default(), Calibration::Uncalibrated());
    StatusOr<StepModel> model = simulator.Model(1, 1);
    QVERIFY2(model.ok(), StatusText(model.status()));
    // The ps partition is cut: the weights come back in the first RunGraph's reply and the
    // gradients go in the second's request.
    QCOMPARE(model->CallsPerStep(), 2);
    int replies_with_weights = 0, requests_with_gradients = 0;
    for (const StepActivity& a : model->activities) {
      if (a.kind != StepActivity::Kind::kMessage) continue;
      if (a.label.rfind("RunGraph reply", 0) == 0 && a.bytes == 38440) ++replies_with_weights;
      if (a.label.rfind("RunGraph request", 0) == 0 && a.bytes == 38440) ++requests_with_gradients;
    }
    QCOMPARE(replies_with_weights, 1);
    QCOMPARE(requests_with_gradients, 1);
    QCOMPARE(model->BytesPerStep(), int64_t{2 * 38440});
    // Every activity waits only for earlier ones.
    for (size_t i = 0; i < model->activities.size(); ++i)
      for (int on : model->activities[i].after) QVERIFY(on < static_cast<int>(i));
  }

  void twoPsAddTheCallsTheEngineMakes() {
    StatusOr<SimProject> project = SimProject::Load(ProjectPath("digits-mlp.clab"));
    QVERIFY2(project.ok(), StatusText(project.status()));
    Simulator simulator(*project, PlatformSpec::Default(), Calibration::Uncalibrated());
    StatusOr<StepModel> model = simulator.Model(1, 2);
    QVERIFY2(model.ok(), StatusText(model.status()));
    // The global step's ps waits for the other ps's updates: it is not cut, so its tensors
    // travel in RecvTensor calls, and it asks the other ps for the updates' control edges.
    QVERIFY(model->CallsPerStep() > 4);
    QCOMPARE(model->CalledTasks().size(), size_t{2});
    QVERIFY(model->MessagesInSequence() > 4);
  }

  // Runs on one ps and on two make different numbers of calls of each kind: from the CPU
  // figures of both, the fit finds the per-call costs at each end and the client's per step
  // that produced them.
  void twoPsRunsSeparateCallAndClientCosts() {
    StatusOr<SimProject> project = SimProject::Load(ProjectPath("digits-mlp.clab"));
    QVERIFY2(project.ok(), StatusText(project.status()));
    Simulator simulator(*project, PlatformSpec::Default(), Calibration::Uncalibrated());
    StatusOr<const StepPlan*> one = simulator.Plan(1, 1);
    StatusOr<const StepPlan*> two = simulator.Plan(1, 2);
    QVERIFY2(one.ok() && two.ok(), StatusText(one.ok() ? two.status() : one.status()));
    CalibrationMeasurements m;
    m.small_echo = {16, 80e-6, 20e-6, 25e-6};
    m.large_echo = {64 * 1024, 300e-6, 90e-6, 100e-6};
    m.steps_per_second = 400;
    m.worker_cpu_per_step = 1e-3;
    m.ps_cpu_per_step = 0.5e-3;
    // The figures a machine with these costs would give.
    StatusOr<Calibration> truth = FitCalibration(m, **one);
    QVERIFY2(truth.ok(), StatusText(truth.status()));
    truth->rpc.client_seconds = 31e-6;
    truth->rpc.server_seconds = 47e-6;
    truth->rpc.server_background_seconds = 0;
    truth->step_client_seconds = 230e-6;
    truth->step_background_seconds = 0;
    StatusOr<StepModel> on_one = BuildStepModel(**one, *truth);
    StatusOr<StepModel> on_two = BuildStepModel(**two, *truth);
    QVERIFY(on_one.ok() && on_two.ok());
    QVERIFY(on_two->server_calls > on_one->server_calls);
    m.worker_cpu_per_step = on_one->WorkerSeconds();
    m.ps_cpu_per_step = on_one->OtherSeconds();
    m.two_ps_worker_cpu_per_step = on_two->WorkerSeconds();
    m.two_ps_ps_cpu_per_step = on_two->OtherSeconds();
    StatusOr<Calibration> fitted = FitCalibration(m, **one, *two);
    QVERIFY2(fitted.ok(), StatusText(fitted.status()));
    // CPU that runs beside the step is split off afterwards; in all, the costs are found.
    QVERIFY(std::fabs(fitted->rpc.client_seconds - 31e-6) < 0.5e-6);
    QVERIFY(std::fabs(fitted->rpc.server_seconds + fitted->rpc.server_background_seconds - 47e-6) < 0.5e-6);
    QVERIFY(std::fabs(fitted->step_client_seconds + fitted->step_background_seconds - 230e-6) < 2e-6);
    // Without the second run, the one-ps figures alone cannot tell them apart.
    StatusOr<Calibration> alone = FitCalibration(m, **one);
    QVERIFY(alone.ok());
    QVERIFY(std::fabs(alone->rpc.client_seconds - 31e-6) > 0.5e-6);
  }

  void seedStepIsOneCall() {
    StatusOr<SimProject> project = SimProject::Load(ProjectPath("seed.clab"));
    QVERIFY2(project.ok(), StatusText(project.status()));
    Simulator simulator(*project, PlatformSpec::Default(), Calibration::Uncalibrated());
    StatusOr<StepModel> model = simulator.Model(1, 1);
    QVERIFY2(model.ok(), StatusText(model.status()));
    // The ps reads x and w and increments the global step, waiting for nothing: one
    // RunGraph, whose reply carries x (1x4) and w (4x1).
    QCOMPARE(model->CallsPerStep(), 1);
    QCOMPARE(model->BytesPerStep(), int64_t{(4 + 4) * 4});
  }

  void unknownProgramsAreNamed() {
    StatusOr<SimProject> project = SimProject::FromJsonText(
        R"({"format": "clusterlab-project", "cluster": {"ps": ["a:1"], "worker": ["b:1"]}, "program": "chess"})",
        "c.clab");
    QVERIFY2(project.ok(), StatusText(project.status()));
    StatusOr<StepGraph> graph = BuildStepGraph(*project, {{"ps", 1}, {"worker", 1}});
    QVERIFY(!graph.ok());
    QVERIFY2(
        QString::fromStdString(std::string(graph.status().message())).contains("c.clab: program: 'chess' is unknown"),
        StatusText(graph.status()));
  }
};

QTEST_APPLESS_MAIN(SimModelTest)
#include "tst_sim_model.moc"
