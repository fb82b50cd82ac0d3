// What sharing a machine's cores costs in the simulator, and its fit: a call that finds its
// callee at work costs the callee less CPU (so a busy ps spends less per step than an idle
// one), a message that arrives at a busy machine wakes its receiver late, neither changes a
// lone worker's step, and FitContention finds the costs a simulated run was made with.
#include "ExampleProjects.h"
#include "StatusText.h"
#include "calibration/Calibration.h"
#include "calibration/ContentionFit.h"
#include "platform/PlatformSpec.h"
#include "project/SimProject.h"
#include "run/Simulator.h"

#include <QtTest>

#include <cmath>

using namespace clab;
using namespace clab::sim;
using clab::testing::StatusText;

namespace {

SimProject Project(const char* name) { return clab::sim::testing::ExampleProject(name); }

// Every task a process of one machine with `cores` cores, talking over its loopback.
PlatformSpec Machine(int cores) {
  const std::string json = "{\"machines\": [{\"name\": \"box\", \"cores\": " + std::to_string(cores) +
                           "}], \"hosts\": [{\"name\": \"localhost\", \"cores\": " + std::to_string(cores) +
                           ", \"machine\": \"box\"}], \"tasks\": {\"*\": \"localhost\"}, "
                           "\"loopback\": {\"bandwidth\": \"800Gbps\", \"latency\": \"0s\"}}";
  StatusOr<PlatformSpec> spec = PlatformSpec::FromJsonText(json, "test platform");
  if (!spec.ok()) qFatal("%s", StatusText(spec.status()));
  return *spec;
}

// A calibration like this machine's for the seed program: the ps's CPU per call about as
// large as the worker's per step, no latency of its own.
Calibration Costs(double saving, double wake_latency) {
  Calibration c = Calibration::Uncalibrated();
  c.calibrated = true;
  c.rpc.client_seconds = 60e-6;
  c.rpc.server_seconds = 100e-6;
  c.rpc.latency = 0;
  c.step_client_seconds = 80e-6;
  c.jitter = 0.1;
  c.rpc.awake_saving_seconds = saving;
  c.rpc.busy_wake_latency = wake_latency;
  return c;
}

SimulationResult Run(const Calibration& c, int workers, int cores = 2) {
  Simulator simulator(Project("seed.clab"), Machine(cores), c);
  SimulationConfig config;
  config.workers = workers;
  config.steps = 200;
  StatusOr<SimulationResult> result = simulator.Run(config);
  if (!result.ok()) qFatal("%s", StatusText(result.status()));
  return *result;
}

}  // namespace

class SimContentionTest : public QObject {
  Q_OBJECT

 private slots:
  void aLoneWorkerPaysNeither() {
    // One worker's calls always find the ps idle and a core free: both costs change nothing.
    const SimulationResult plain = Run(Costs(0, 0), 1);
    const SimulationResult both = Run(Costs(60e-6, 200e-6), 1);
    QVERIFY(plain.total_steps_per_second > 0);
    QCOMPARE(both.total_steps_per_second, plain.total_steps_per_second);
    QCOMPARE(both.served_cpu_per_step, plain.served_cpu_per_step);
    QCOMPARE(both.awake_call_share, 0.0);
  }

  void aBusyPsSpendsLessPerCall() {
    const SimulationResult alone = Run(Costs(60e-6, 0), 1);
    const SimulationResult plain = Run(Costs(0, 0), 4);
    const SimulationResult saving = Run(Costs(60e-6, 0), 4);
    // Without the saving, every call costs the ps the same, however many workers call it.
    QVERIFY2(std::fabs(plain.served_cpu_per_step - alone.served_cpu_per_step) < 0.02 * alone.served_cpu_per_step,
             qPrintable(QString("%1 against %2").arg(plain.served_cpu_per_step).arg(alone.served_cpu_per_step)));
    // With it, four workers keep the ps at work: most calls find it awake and cost it less,
    // and the steps go faster for it.
    QVERIFY2(saving.awake_call_share > 0.3, qPrintable(QString::number(saving.awake_call_share)));
    QVERIFY(saving.served_cpu_per_step < plain.served_cpu_per_step - 0.3 * 60e-6);
    QVERIFY(saving.served_cpu_per_step > plain.served_cpu_per_step - 60e-6 - 1e-9);
    QVERIFY(saving.total_steps_per_second > plain.total_steps_per_second);
  }

  void aBusyMachineWakesItsReceiversLate() {
    const SimulationResult plain = Run(Costs(0, 0), 2);
    const SimulationResult late = Run(Costs(0, 200e-6), 2);
    QVERIFY2(late.total_steps_per_second < 0.9 * plain.total_steps_per_second,
             qPrintable(QString("%1 against %2").arg(late.total_steps_per_second).arg(plain.total_steps_per_second)));
    // The time goes to waiting, not to compute or to the messages.
    QVERIFY(late.MeanWaiting() > plain.MeanWaiting());
    QVERIFY(std::fabs(late.MeanCompute() - plain.MeanCompute()) < 0.1 * plain.MeanCompute());
    // On a machine with cores to spare, the same two workers barely notice it.
    const SimulationResult big = Run(Costs(0, 200e-6), 2, 64);
    const SimulationResult big_plain = Run(Costs(0, 0), 2, 64);
    QVERIFY(big.total_steps_per_second > 0.97 * big_plain.total_steps_per_second);
  }

  void theFitFindsTheCostsARunWasMadeWith() {
    const double saving = 50e-6, latency = 100e-6;
    const SimulationResult truth = Run(Costs(saving, latency), 2);
    ContentionMeasurement measured;
    measured.workers = 2;
    measured.steps_per_second = truth.total_steps_per_second;
    measured.ps_cpu_per_step = truth.served_cpu_per_step;
    QStringList lines;
    StatusOr<Calibration> fitted =
        FitContention(Costs(0, 0), Project("seed.clab"), Machine(2), measured,
                      [&](const std::string& line) { lines << QString::fromStdString(line); });
    QVERIFY2(fitted.ok(), StatusText(fitted.status()));
    QVERIFY2(std::fabs(fitted->rpc.awake_saving_seconds - saving) < 0.3 * saving,
             qPrintable(QString::number(fitted->rpc.awake_saving_seconds * 1e6)));
    QVERIFY2(std::fabs(fitted->rpc.busy_wake_latency - latency) < 0.3 * latency,
             qPrintable(QString::number(fitted->rpc.busy_wake_latency * 1e6)));
    QCOMPARE(fitted->measured_two_workers_steps_per_second, measured.steps_per_second);
    // Played again with what it found, the run is the measured one.
    const SimulationResult again = Run(*fitted, 2);
    QVERIFY(std::fabs(again.total_steps_per_second - truth.total_steps_per_second) <
            0.02 * truth.total_steps_per_second);
    QVERIFY(std::fabs(again.served_cpu_per_step - truth.served_cpu_per_step) < 0.03 * truth.served_cpu_per_step);
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines.front().contains("2 workers on 1 ps"), qPrintable(lines.front()));
    // A machine slower than the model even without either cost: nothing to fit, both stay 0.
    measured.steps_per_second = 10 * truth.total_steps_per_second;
    fitted = FitContention(Costs(0, 0), Project("seed.clab"), Machine(2), measured);
    QVERIFY2(fitted.ok(), StatusText(fitted.status()));
    QCOMPARE(fitted->rpc.busy_wake_latency, 0.0);
  }

  void theFitRefusesAnEmptyRun() {
    ContentionMeasurement measured;
    measured.workers = 1;
    measured.steps_per_second = 100;
    measured.ps_cpu_per_step = 1e-4;
    StatusOr<Calibration> fitted = FitContention(Costs(0, 0), Project("seed.clab"), Machine(2), measured);
    QVERIFY(!fitted.ok());
    measured.workers = 2;
    measured.steps_per_second = 0;
    fitted = FitContention(Costs(0, 0), Project("seed.clab"), Machine(2), measured);
    QVERIFY(!fitted.ok());
    QVERIFY2(std::string(StatusText(fitted.status())).find("no steps") != std::string::npos,
             StatusText(fitted.status()));
  }

  void theCostsTravelInTheCalibrationFile() {
    Calibration c = Costs(40e-6, 70e-6);
    c.measured_two_workers_steps_per_second = 6500;
    c.measured_two_workers_ps_cpu_per_step = 85e-6;
    StatusOr<Calibration> back = Calibration::FromJsonText(c.ToJsonText(), "c.json");
    QVERIFY2(back.ok(), StatusText(back.status()));
    QCOMPARE(back->rpc.awake_saving_seconds, 40e-6);
    QCOMPARE(back->rpc.busy_wake_latency, 70e-6);
    QCOMPARE(back->measured_two_workers_steps_per_second, 6500.0);
    QCOMPARE(back->measured_two_workers_ps_cpu_per_step, 85e-6);
    // A saving larger than the call's whole CPU is named.
    std::string text = c.ToJsonText();
    const std::string field = "\"awake_saving_seconds\": 4e-05";
    const size_t at = text.find(field);
    QVERIFY2(at != std::string::npos, text.c_str());
    text.replace(at, field.size(), "\"awake_saving_seconds\": 0.5");
    back = Calibration::FromJsonText(text, "c.json");
    QVERIFY(!back.ok());
    QVERIFY2(std::string(StatusText(back.status())).find("c.json.rpc.awake_saving_seconds") != std::string::npos,
             StatusText(back.status()));
  }
};

QTEST_GUILESS_MAIN(SimContentionTest)
#include "tst_sim_contention.moc"
