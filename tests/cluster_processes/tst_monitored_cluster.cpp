// Monitored training sessions against `clab server` processes on loopback: a non-chief that
// starts first waits (and says for which variables) until the chief has initialised the
// model, then both train the shared parameters to the last step; a ps killed with SIGKILL
// and started again mid-training is recovered from the chief's last checkpoint, and
// training ends at the last step with parameters and global step consistent and every
// checkpoint file whole.
#include "CheckpointDirCheck.h"
#include "LoopbackCluster.h"
#include "StatusText.h"
#include "TaskProcess.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/io/TensorBundle.h"
#include "clab/ops/Ops.h"
#include "clab/train/CheckpointState.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/MonitoredSession.h"
#include "clab/train/hooks/StopAtStepHook.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <functional>
#include <future>
#include <mutex>

using namespace clab;
using namespace clab::testing;

namespace {

using Cluster = LoopbackCluster;

Cluster MakeCluster(int ps, int workers) { return LoopbackCluster::Make(ps, workers); }

// A parameter w on the ps that every step raises by 1, together with the global step (also
// on the ps, so that every worker counts the same steps).
struct Model {
  GraphBuilder g;
  std::string train;
  std::string w = "w:0";
  std::string step = "global_step/read:0";
};

std::unique_ptr<Model> BuildModel(const Cluster& cluster, int task) {
  auto model = std::make_unique<Model>();
  ReplicaDeviceSetterOptions setter_options;
  setter_options.worker_device = "/job:worker/task:" + std::to_string(task);
  setter_options.cluster = cluster.dict();
  auto setter = ReplicaDeviceSetter(setter_options);
  if (!setter.ok()) return nullptr;
  auto scope = model->g.WithDevice(*setter);
  Output global_step = GetOrCreateGlobalStep(model->g);
  ops::Variable w = ops::MakeVariable(model->g, ops::Const(model->g, Tensor::Scalar<float>(0.f)), "w");
  Output bump = ops::AssignAdd(model->g, w.var, ops::Const(model->g, Tensor::Scalar<float>(1.f)), "bump");
  auto after_bump = model->g.WithControlDependencies({bump.control()});
  model->train = IncrementGlobalStep(model->g, global_step, "train").name();
  return model;
}

// Collects a session's events (states, hook lines, errors) for the test to look at.
class EventLog {
 public:
  std::shared_ptr<TrainingLog> Make(const std::string& task) {
    auto log = std::make_shared<TrainingLog>(task, /*print=*/false);
    log->AddSink([this](const TaskEvent& event) {
      std::lock_guard<std::mutex> lock(mu_);
      events_.push_back(event);
    });
    return log;
  }
  bool Has(const std::function<bool(const TaskEvent&)>& match) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const TaskEvent& event : events_)
      if (match(event)) return true;
    return false;
  }
  QString StatusText() const {
    std::lock_guard<std::mutex> lock(mu_);
    QStringList lines;
    for (const TaskEvent& event : events_) lines << QString::fromStdString(event.ShortDebugString());
    return lines.join("\n");
  }

 private:
  mutable std::mutex mu_;
  std::vector<TaskEvent> events_;
};

MonitoredTrainingSessionOptions Options(const std::string& target, bool chief, int64_t last_step,
                                        std::shared_ptr<TrainingLog> log) {
  MonitoredTrainingSessionOptions options;
  options.master = target;
  options.is_chief = chief;
  options.log = std::move(log);
  options.recovery_wait_secs = 0.2;
  options.config.mutable_clusterlab()->set_wait_for_tasks_ms(20000);
  options.hooks.push_back(std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(last_step)));
  return options;
}

// Runs `train` until the session says stop; the number of runs, or the error.
StatusOr<int64_t> TrainToEnd(MonitoredSession& session, const std::string& train) {
  std::vector<Tensor> out;
  int64_t runs = 0;
  while (!session.should_stop()) {
    if (runs == 100000) return errors::DeadlineExceeded("the session never said stop after ", runs, " runs");
    CLAB_RETURN_IF_ERROR(session.Run({train}, {}, &out));
    ++runs;
  }
  return runs;
}

// Calls `action` once, after the run that took the global step to `at_step` or beyond.
class AtStepHook final : public SessionRunHook {
 public:
  AtStepHook(int64_t at_step, std::function<void()> action) : at_step_(at_step), action_(std::move(action)) {}
  std::string name() const override { return "AtStepHook"; }
  Status Begin(HookEnvironment& env) override {
    step_tensor_ = env.global_step_tensor;
    return OkStatus();
  }
  StatusOr<SessionRunArgs> BeforeRun(SessionRunContext&) override { return SessionRunArgs{{step_tensor_}, {}, {}}; }
  Status AfterRun(SessionRunContext&, const SessionRunValues& values) override {
    if (!done_ && values.results.at(0).scalar<int64_t>() + 1 >= at_step_) {
      done_ = true;
      action_();
    }
    return OkStatus();
  }

 private:
  const int64_t at_step_;
  std::function<void()> action_;
  std::string step_tensor_;
  bool done_ = false;
};

}  // namespace

class MonitoredClusterTest : public QObject {
  Q_OBJECT

 private slots:
  void nonChiefWaitsForTheChiefThenBothTrain();
  void psRestartedMidTrainingIsRecoveredFromTheLastCheckpoint();
};

void MonitoredClusterTest::nonChiefWaitsForTheChiefThenBothTrain() {
  const Cluster cluster = MakeCluster(1, 2);
  auto ps = TaskProcess::Server(cluster.spec(), "ps", 0);
  auto worker0 = TaskProcess::Server(cluster.spec(), "worker", 0);
  auto worker1 = TaskProcess::Server(cluster.spec(), "worker", 1);
  for (TaskProcess* task : {ps.get(), worker0.get(), worker1.get()})
    QVERIFY2(task->waitUntilServing(), qPrintable(task->output()));

  constexpr int64_t kLastStep = 60;
  EventLog chief_events, other_events;
  auto other_model = BuildModel(cluster, 1);
  QVERIFY(other_model);
  auto other = std::async(std::launch::async, [&]() -> StatusOr<int64_t> {
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<MonitoredSession> session,
                          MonitoredTrainingSession(other_model->g, Options(cluster.target(1), false, kLastStep,
                                                                           other_events.Make("worker/1"))));
    CLAB_ASSIGN_OR_RETURN(int64_t runs, TrainToEnd(*session, other_model->train));
    CLAB_RETURN_IF_ERROR(session->Close());
    return runs;
  });
  // The non-chief says what it waits for before any chief exists.
  QTRY_VERIFY_WITH_TIMEOUT(other_events.Has([](const TaskEvent& e) {
    return e.has_state() && e.state().phase() == TaskState::WAITING && e.state().uninitialized_size() > 0;
  }),
                           15000);
  QVERIFY(other.wait_for(std::chrono::milliseconds(200)) == std::future_status::timeout);

  auto chief_model = BuildModel(cluster, 0);
  auto chief = MonitoredTrainingSession(chief_model->g,
                                        Options(cluster.target(0), true, kLastStep, chief_events.Make("worker/0")));
  QVERIFY2(chief.ok(), StatusText(chief.status()));
  auto chief_runs = TrainToEnd(**chief, chief_model->train);
  QVERIFY2(chief_runs.ok(), StatusText(chief_runs.status()));
  QVERIFY2(other.wait_for(std::chrono::seconds(30)) == std::future_status::ready, "the non-chief never finished");
  auto other_runs = other.get();
  QVERIFY2(other_runs.ok(), StatusText(other_runs.status()));
  QVERIFY2(*other_runs > 0, qPrintable(other_events.StatusText()));

  // Both updated the same w, one increment per step of the shared global step.
  std::vector<Tensor> values;
  QVERIFY((*chief)->raw_session()->Run({}, {chief_model->w, chief_model->step}, {}, &values).ok());
  const int64_t step = values[1].scalar<int64_t>();
  // Each worker stops after the first run that finds the step at the end; a run of each may
  // be in flight then, as in TensorFlow, so the step ends at most one per worker past it.
  QVERIFY2(step >= kLastStep && step <= kLastStep + 2, qPrintable(QString::number(step)));
  QCOMPARE(values[0].scalar<float>(), static_cast<float>(step));
  QCOMPARE(*chief_runs + *other_runs, step);
  QVERIFY((*chief)->Close().ok());
}

void MonitoredClusterTest::psRestartedMidTrainingIsRecoveredFromTheLastCheckpoint() {
  const Cluster cluster = MakeCluster(1, 1);
  auto ps = TaskProcess::Server(cluster.spec(), "ps", 0);
  auto worker = TaskProcess::Server(cluster.spec(), "worker", 0);
  QVERIFY(ps->waitUntilServing() && worker->waitUntilServing());

  QTemporaryDir dir;
  constexpr int64_t kLastStep = 300;
  EventLog events;
  auto model = BuildModel(cluster, 0);
  MonitoredTrainingSessionOptions options = Options(cluster.target(0), true, kLastStep, events.Make("worker/0"));
  options.checkpoint_dir = dir.path().toStdString();
  options.save_checkpoint_steps = 25;
  bool restarted = false;
  // At step 130 the ps dies without a word and a new one takes its port: its variables are
  // gone, so the chief must restore them (and the global step) from model.ckpt-125.
  options.hooks.push_back(std::make_shared<AtStepHook>(130, [&] {
    ps->killHard();
    ps = TaskProcess::Server(cluster.spec(), "ps", 0);
    restarted = ps->waitUntilServing();
  }));
  auto session = MonitoredTrainingSession(model->g, options);
  QVERIFY2(session.ok(), StatusText(session.status()));
  auto runs = TrainToEnd(**session, model->train);
  QVERIFY2(runs.ok(), StatusText(runs.status()));
  QVERIFY(restarted);
  QVERIFY2((*session)->recoveries() >= 1, qPrintable(events.StatusText()));
  QVERIFY2(events.Has([](const TaskEvent& e) {
    return e.has_log() && QString::fromStdString(e.log().text()).contains("Restoring parameters from") &&
           QString::fromStdString(e.log().text()).endsWith("model.ckpt-125");
  }),
           qPrintable(events.StatusText()));

  std::vector<Tensor> values;
  QVERIFY((*session)->raw_session()->Run({}, {model->w, model->step}, {}, &values).ok());
  QCOMPARE(values[1].scalar<int64_t>(), kLastStep);
  // w was restored with the global step, so they still agree.
  QCOMPARE(values[0].scalar<float>(), static_cast<float>(kLastStep));
  QVERIFY((*session)->Close().ok());

  // Every checkpoint the state file names is whole (the last five are kept).
  auto checkpoints = ReadBackListedCheckpoints(dir.path().toStdString());
  QVERIFY2(checkpoints.ok(), StatusText(checkpoints.status()));
  QVERIFY(!checkpoints->empty());
  QVERIFY2(QString::fromStdString(checkpoints->front()).endsWith("model.ckpt-300"),
           qPrintable(QString::fromStdString(checkpoints->front())));
}

QTEST_GUILESS_MAIN(MonitoredClusterTest)
#include "tst_monitored_cluster.moc"
