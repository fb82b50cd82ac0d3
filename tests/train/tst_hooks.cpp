// Hook semantics in a local monitored session: stop conditions, checkpoint cadence, call
// order, stop requests, logging format and the stale-global-step warning.
#include "clab/ops/Ops.h"
#include "clab/train/CheckpointState.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/MonitoredSession.h"
#include "clab/train/hooks/CheckpointSaverHook.h"
#include "clab/train/hooks/LoggingTensorHook.h"
#include "clab/train/hooks/NanTensorHook.h"
#include "clab/train/hooks/SmallHooks.h"
#include "clab/train/hooks/StepCounterHook.h"
#include "clab/train/hooks/StopAtStepHook.h"

#include <QtTest>

#include <filesystem>

using namespace clab;

namespace {

// A counter model: global_step increments by one per run of "train".
struct CounterModel {
  GraphBuilder g;
  Output global_step;
  Output train;
  Output value;
  explicit CounterModel(bool increment = true) {
    global_step = GetOrCreateGlobalStep(g);
    train = increment ? IncrementGlobalStep(g, global_step, "train")
                      : ops::Identity(g, Output("global_step/read"), "train");
    value = ops::Const(g, Tensor::Scalar<float>(1.5f), "value");
  }
};

class RecordingHook : public SessionRunHook {
 public:
  RecordingHook(std::string id, std::vector<std::string>* calls, int stop_in_before = -1, int stop_in_after = -1)
      : id_(std::move(id)), calls_(calls), stop_in_before_(stop_in_before), stop_in_after_(stop_in_after) {}
  std::string name() const override { return "RecordingHook"; }
  Status Begin(HookEnvironment&) override { return Record("begin"); }
  Status AfterCreateSession(Session&) override { return Record("after_create_session"); }
  StatusOr<SessionRunArgs> BeforeRun(SessionRunContext& c) override {
    if (runs_ == stop_in_before_) c.request_stop();
    CLAB_RETURN_IF_ERROR(Record("before_run"));
    SessionRunArgs args;
    args.fetches = {"value:0"};
    return args;
  }
  Status AfterRun(SessionRunContext& c, const SessionRunValues& v) override {
    if (v.results.size() != 1 || v.results[0].scalar<float>() != 1.5f) return errors::Internal("bad hook fetch");
    if (runs_ == stop_in_after_) c.request_stop();
    ++runs_;
    return Record("after_run");
  }
  Status End(Session&) override { return Record("end"); }

 private:
  Status Record(const std::string& what) {
    calls_->push_back(id_ + ":" + what);
    return OkStatus();
  }
  std::string id_;
  std::vector<std::string>* calls_;
  int stop_in_before_, stop_in_after_;
  int runs_ = 0;
};

MonitoredTrainingSessionOptions QuietOptions() {
  MonitoredTrainingSessionOptions o;
  o.log = std::make_shared<TrainingLog>("", /*print=*/false);
  return o;
}

}  // namespace

class HooksTest : public QObject {
  Q_OBJECT

 private slots:
  void stopAtStep_data() {
    // clang-format off
    QTest::addColumn<bool>("useNumSteps");
    QTest::addColumn<int>("value");
    QTest::addColumn<int>("expectedRuns");
    QTest::addColumn<int>("expectedFinalStep");
    QTest::newRow("last_step 10") << false << 10 << 10 << 10;
    QTest::newRow("last_step 1") << false << 1 << 1 << 1;
    QTest::newRow("num_steps 7") << true << 7 << 7 << 7;
    QTest::newRow("num_steps 1") << true << 1 << 1 << 1;
    // clang-format on
  }
  void stopAtStep() {
    QFETCH(bool, useNumSteps);
    QFETCH(int, value);
    QFETCH(int, expectedRuns);
    QFETCH(int, expectedFinalStep);
    CounterModel m;
    auto o = QuietOptions();
    o.hooks.push_back(std::make_shared<StopAtStepHook>(useNumSteps ? StopAtStepHook::NumSteps(value)
                                                                   : StopAtStepHook::LastStep(value)));
    auto s = MonitoredTrainingSession(m.g, o);
    QVERIFY2(s.ok(), s.status().ToString().c_str());
    int runs = 0;
    std::vector<Tensor> out;
    while (!(*s)->should_stop() && runs < 1000) {
      QVERIFY((*s)->Run({m.train.name()}, {}, &out).ok());
      ++runs;
    }
    QCOMPARE(runs, expectedRuns);
    auto step = ReadGlobalStep(*(*s)->raw_session(), "global_step/read:0");
    QVERIFY(step.ok());
    QCOMPARE(*step, int64_t(expectedFinalStep));
    std::vector<Tensor> more;
    Status after = (*s)->Run({m.train.name()}, {}, &more);
    QVERIFY(absl::IsFailedPrecondition(after));
    QVERIFY(std::string(after.message()).find("should_stop") != std::string::npos);
  }

  void stopAtStepNeverStopsWithoutIncrement() {
    CounterModel m(/*increment=*/false);
    auto o = QuietOptions();
    o.hooks.push_back(std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(5)));
    auto s = MonitoredTrainingSession(m.g, o);
    QVERIFY(s.ok());
    std::vector<Tensor> out;
    for (int i = 0; i < 50; ++i) QVERIFY((*s)->Run({m.train.name()}, {}, &out).ok());
    QVERIFY(!(*s)->should_stop());
  }

  void callOrder() {
    CounterModel m;
    std::vector<std::string> calls;
    auto o = QuietOptions();
    o.hooks.push_back(std::make_shared<RecordingHook>("a", &calls));
    o.hooks.push_back(std::make_shared<RecordingHook>("b", &calls));
    auto s = MonitoredTrainingSession(m.g, o);
    QVERIFY(s.ok());
    std::vector<Tensor> out;
    QVERIFY((*s)->Run({m.train.name()}, {}, &out).ok());
    QVERIFY((*s)->Close().ok());
    const std::vector<std::string> expected = {"a:begin",
                                               "b:begin",
                                               "a:after_create_session",
                                               "b:after_create_session",
                                               "a:before_run",
                                               "b:before_run",
                                               "a:after_run",
                                               "b:after_run",
                                               "a:end",
                                               "b:end"};
    QCOMPARE(calls, expected);
  }

  void requestStop_data() {
    // clang-format off
    QTest::addColumn<int>("stopInBefore");
    QTest::addColumn<int>("stopInAfter");
    QTest::addColumn<int>("expectedRuns");
    QTest::newRow("before_run of run 0") << 0 << -1 << 1;
    QTest::newRow("after_run of run 2") << -1 << 2 << 3;
    // clang-format on
  }
  void requestStop() {
    QFETCH(int, stopInBefore);
    QFETCH(int, stopInAfter);
    QFETCH(int, expectedRuns);
    CounterModel m;
    std::vector<std::string> calls;
    auto o = QuietOptions();
    o.hooks.push_back(std::make_shared<RecordingHook>("h", &calls, stopInBefore, stopInAfter));
    auto s = MonitoredTrainingSession(m.g, o);
    QVERIFY(s.ok());
    int runs = 0;
    std::vector<Tensor> out;
    while (!(*s)->should_stop() && runs < 100) {
      QVERIFY((*s)->Run({m.train.name()}, {}, &out).ok());
      ++runs;
    }
    QCOMPARE(runs, expectedRuns);
  }

  void checkpointCadence_data() {
    // clang-format off
    QTest::addColumn<int>("everySteps");
    QTest::addColumn<int>("lastStep");
    QTest::addColumn<QStringList>("expectedFiles");
    // Saved at creation (0), every N steps, and at the end.
    QTest::newRow("every 5 to 12") << 5 << 12 << QStringList{"model.ckpt-0", "model.ckpt-5", "model.ckpt-10", "model.ckpt-12"};
    QTest::newRow("every 4 to 8") << 4 << 8 << QStringList{"model.ckpt-0", "model.ckpt-4", "model.ckpt-8"};
    // clang-format on
  }
  void checkpointCadence() {
    QFETCH(int, everySteps);
    QFETCH(int, lastStep);
    QFETCH(QStringList, expectedFiles);
    QTemporaryDir dir;
    CounterModel m;
    auto o = QuietOptions();
    o.checkpoint_dir = dir.path().toStdString();
    o.save_checkpoint_steps = everySteps;
    o.hooks.push_back(std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(lastStep)));
    auto s = MonitoredTrainingSession(m.g, o);
    QVERIFY2(s.ok(), s.status().ToString().c_str());
    std::vector<Tensor> out;
    for (int run = 0; !(*s)->should_stop(); ++run) {
      QVERIFY2(run < 10000, "the session never said stop");
      QVERIFY((*s)->Run({m.train.name()}, {}, &out).ok());
    }
    QVERIFY((*s)->Close().ok());
    QStringList found;
    for (const auto& e : std::filesystem::directory_iterator(dir.path().toStdString())) {
      const std::string name = e.path().filename().string();
      if (name.size() > 6 && name.substr(name.size() - 6) == ".index")
        found << QString::fromStdString(name.substr(0, name.size() - 6));
    }
    auto byStep = [](const QString& a, const QString& b) {
      return a.section('-', 1).toInt() < b.section('-', 1).toInt();
    };
    std::sort(found.begin(), found.end(), byStep);
    // max_to_keep = 5 keeps them all here.
    QCOMPARE(found, expectedFiles);
    auto latest = LatestCheckpoint(dir.path().toStdString());
    QVERIFY(latest.ok());
    QVERIFY(QString::fromStdString(*latest).endsWith(expectedFiles.last()));
  }

  void checkpointCadenceBySeconds() {
    QTemporaryDir dir;
    CounterModel m;
    auto o = QuietOptions();
    o.checkpoint_dir = dir.path().toStdString();
    o.save_checkpoint_secs = 3600;  // only at creation and at the end
    o.hooks.push_back(std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(20)));
    auto s = MonitoredTrainingSession(m.g, o);
    QVERIFY(s.ok());
    std::vector<Tensor> out;
    for (int run = 0; !(*s)->should_stop(); ++run) {
      QVERIFY2(run < 10000, "the session never said stop");
      QVERIFY((*s)->Run({m.train.name()}, {}, &out).ok());
    }
    QVERIFY((*s)->Close().ok());
    auto state = ReadCheckpointState(dir.path().toStdString());
    QVERIFY(state.ok());
    QCOMPARE(state->all_model_checkpoint_paths_size(), 2);
    QVERIFY(QString::fromStdString(state->model_checkpoint_path()).endsWith("model.ckpt-20"));
  }

  void loggingTensorHookFormat_data() {
    // clang-format off
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("expected");
    QTest::newRow("sorted tags, no elapsed") << 0 << "loss = 0.5, step = 3";
    QTest::newRow("with elapsed") << 1 << "loss = 0.5, step = 3 (0.532 sec)";
    QTest::newRow("matrix value") << 2 << "w = [[1 2]\n [3 4]]";
    // clang-format on
  }
  void loggingTensorHookFormat() {
    QFETCH(int, which);
    QFETCH(QString, expected);
    auto hook = LoggingTensorHook::Create({{"step", "global_step"}, {"loss", "loss"}}, 1, 0);
    QVERIFY(hook.ok());
    std::map<std::string, Tensor> values = {{"loss", Tensor::Scalar<float>(0.5f)},
                                            {"step", Tensor::Scalar<int64_t>(3)}};
    std::string text;
    if (which == 0) text = (*hook)->Format(values, std::nullopt);
    if (which == 1) text = (*hook)->Format(values, 0.532);
    if (which == 2) text = (*hook)->Format({{"w", Tensor::Matrix<int32_t>({{1, 2}, {3, 4}})}}, std::nullopt);
    QCOMPARE(QString::fromStdString(text), expected);
  }

  void loggingTensorHookArgumentErrors() {
    QVERIFY(!LoggingTensorHook::Create({{"a", "a"}}, 0, 0).ok());
    QVERIFY(!LoggingTensorHook::Create({{"a", "a"}}, 5, 2.0).ok());
    QVERIFY(!LoggingTensorHook::Create({{"a", "a"}}, -1, 0).ok());
    QVERIFY(!LoggingTensorHook::Create({}, 5, 0).ok());
    QVERIFY(LoggingTensorHook::Create({{"a", "a"}}, 0, 0, /*at_end=*/true).ok());
  }

  void loggingTensorHookEveryNIterations() {
    CounterModel m;
    auto o = QuietOptions();
    std::vector<std::string> lines;
    o.log->AddSink([&](const TaskEvent& e) {
      if (e.has_hook() && e.hook().hook() == "LoggingTensorHook") lines.push_back(e.hook().text());
    });
    auto hook = LoggingTensorHook::Create({{"value", "value"}}, 3, 0);
    QVERIFY(hook.ok());
    o.hooks.push_back(*hook);
    auto s = MonitoredTrainingSession(m.g, o);
    QVERIFY(s.ok());
    std::vector<Tensor> out;
    for (int i = 0; i < 7; ++i) QVERIFY((*s)->Run({m.train.name()}, {}, &out).ok());
    QCOMPARE(lines.size(), size_t(3));  // iterations 0, 3, 6
    QCOMPARE(QString::fromStdString(lines[0]), QString("value = 1.5"));
    QVERIFY(QString::fromStdString(lines[1]).startsWith("value = 1.5 ("));
  }

  void staleGlobalStepWarning() {
    CounterModel m(/*increment=*/false);
    auto o = QuietOptions();
    std::vector<std::string> warnings;
    o.log->AddSink([&](const TaskEvent& e) {
      if (e.has_hook() && e.hook().level() == static_cast<int>(LogLevel::kWarning)) warnings.push_back(e.hook().text());
    });
    o.hooks.push_back(std::make_shared<StepCounterHook>(SecondOrStepTimer::EverySteps(100)));
    auto s = MonitoredTrainingSession(m.g, o);
    QVERIFY(s.ok());
    std::vector<Tensor> out;
    for (int i = 0; i < 45; ++i) QVERIFY((*s)->Run({m.train.name()}, {}, &out).ok());
    QCOMPARE(warnings.size(), size_t(2));
    QVERIFY(QString::fromStdString(warnings[0]).contains("has not been increased"));
  }

  void nanTensorHook() {
    GraphBuilder g;
    GetOrCreateGlobalStep(g);
    ops::Const(g, Tensor::Scalar<float>(std::nanf("")), "loss");
    auto o = QuietOptions();
    o.hooks.push_back(std::make_shared<NanTensorHook>("loss:0", /*fail_on_nan_loss=*/false));
    auto s = MonitoredTrainingSession(g, o);
    QVERIFY(s.ok());
    std::vector<Tensor> out;
    QVERIFY((*s)->Run({"loss:0"}, {}, &out).ok());
    QVERIFY((*s)->should_stop());

    GraphBuilder g2;
    GetOrCreateGlobalStep(g2);
    ops::Const(g2, Tensor::Scalar<float>(std::nanf("")), "loss");
    auto o2 = QuietOptions();
    o2.hooks.push_back(std::make_shared<NanTensorHook>("loss:0"));
    auto s2 = MonitoredTrainingSession(g2, o2);
    QVERIFY(s2.ok());
    Status failed = (*s2)->Run({"loss:0"}, {}, &out);
    QVERIFY(!failed.ok());
    QVERIFY(std::string(failed.message()).find("NaN loss during training") != std::string::npos);
  }

  void feedConflicts() {
    CounterModel m;
    auto o = QuietOptions();
    auto feed = [] { return FeedList{{"value:0", Tensor::Scalar<float>(2.f)}}; };
    o.hooks.push_back(std::make_shared<FeedFnHook>(feed));
    o.hooks.push_back(std::make_shared<FeedFnHook>(feed));
    auto s = MonitoredTrainingSession(m.g, o);
    QVERIFY(s.ok());
    std::vector<Tensor> out;
    Status st = (*s)->Run({"value:0"}, {}, &out);
    QVERIFY(absl::IsInvalidArgument(st));
    QVERIFY(std::string(st.message()).find("fed by two hooks") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(HooksTest)
#include "tst_hooks.moc"
