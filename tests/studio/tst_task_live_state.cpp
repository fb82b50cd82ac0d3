// What the studio shows for a task, from what the task said and how its process ended: the
// condition decides the words and the light, a Stop is not a crash, exit statuses are read as
// numbers (exited 15 is not exited 1), a failed step shows until the model is ready again, and
// a restore is named while the task trains on.
#include "run/TaskLiveState.h"

#include <QtTest>

#include <csignal>

using namespace clab::ui;

namespace {

TaskStatus Training(qint64 step) {
  TaskStatus status;
  status.connected = true;
  status.phase = clab::TaskState::TRAINING;
  status.global_step = step;
  status.steps_per_second = 120;
  return status;
}

ProcessEnd End(ProcessEnd::Kind kind, int code = 0) {
  ProcessEnd end;
  end.kind = kind;
  end.code = code;
  return end;
}

}  // namespace

class TaskLiveStateTest : public QObject {
  Q_OBJECT

 private slots:
  void trainingShowsTheStep() {
    const TaskLiveState state = DescribeTask(Training(1200), {});
    QCOMPARE(state.condition, TaskCondition::kTraining);
    QCOMPARE(state.text, QString("training, step 1200"));
    QCOMPARE(state.light, ConditionColor(TaskCondition::kTraining));
  }

  void processEndsDecideOverTheLastEvent_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("code");
    QTest::addColumn<int>("condition");
    QTest::addColumn<QString>("text");
    using K = ProcessEnd::Kind;
    QTest::newRow("stopped") << int(K::kStopped) << SIGTERM << int(TaskCondition::kStopped) << "stopped";
    QTest::newRow("killed") << int(K::kKilled) << SIGKILL << int(TaskCondition::kKilled) << "killed (SIGKILL)";
    QTest::newRow("segfault") << int(K::kSignalled) << SIGSEGV << int(TaskCondition::kCrashed) << "crashed (SIGSEGV)";
    QTest::newRow("exit 1") << int(K::kExited) << 1 << int(TaskCondition::kFailed) << "exited 1";
    QTest::newRow("exit 15") << int(K::kExited) << 15 << int(TaskCondition::kFailed) << "exited 15";
    QTest::newRow("exit 0") << int(K::kExited) << 0 << int(TaskCondition::kFinished) << "finished at step 1200";
  }

  void processEndsDecideOverTheLastEvent() {
    QFETCH(int, kind);
    QFETCH(int, code);
    QFETCH(int, condition);
    QFETCH(QString, text);
    // The last event said "training"; the process has ended since: that wins.
    const TaskLiveState state = DescribeTask(Training(1200), End(static_cast<ProcessEnd::Kind>(kind), code));
    QCOMPARE(int(state.condition), condition);
    QCOMPARE(state.text, text);
    QCOMPARE(state.light, ConditionColor(state.condition));
  }

  void lightsFollowTheCondition() {
    // Ended badly: red; stopped or finished: not red and not green; training: green.
    const QColor red = ConditionColor(TaskCondition::kCrashed);
    QCOMPARE(ConditionColor(TaskCondition::kKilled), red);
    QCOMPARE(ConditionColor(TaskCondition::kFailed), red);
    QVERIFY(ConditionColor(TaskCondition::kStopped) != red);
    QVERIFY(ConditionColor(TaskCondition::kStopped) != ConditionColor(TaskCondition::kTraining));
    QVERIFY(ConditionColor(TaskCondition::kRecovering) != ConditionColor(TaskCondition::kTraining));
    QVERIFY(ConditionColor(TaskCondition::kStalled) != ConditionColor(TaskCondition::kTraining));
  }

  void aFailedStepShowsUntilTheModelIsReady() {
    TaskStatus status = Training(500);
    status.step_failed = true;
    status.last_error = "UNAVAILABLE: failed to connect to all addresses";
    TaskLiveState state = DescribeTask(status, {});
    QCOMPARE(state.condition, TaskCondition::kRecovering);
    QCOMPARE(state.text, QString("recovering after UNAVAILABLE"));
    status.step_failed = false;
    status.phase = clab::TaskState::WAITING;
    status.uninitialized = {"w", "b"};
    state = DescribeTask(status, {});
    QCOMPARE(state.condition, TaskCondition::kWaiting);
    QCOMPARE(state.text, QString("waiting for the chief to initialise 2 variable(s)"));
  }

  void noStepsMeansNotTraining() {
    TaskStatus status = Training(800);
    status.stalled = true;
    status.steps_per_second = 0;
    const TaskLiveState state = DescribeTask(status, {});
    QCOMPARE(state.condition, TaskCondition::kStalled);
    QCOMPARE(state.text, QString("no steps, step 800"));
  }

  void aRestoreIsNamed() {
    TaskStatus status = Training(460);
    status.restored_from = "/tmp/run/model.ckpt-400";
    status.restored_step = 400;
    QCOMPARE(DescribeTask(status, {}).text, QString("training, step 460 (restored from model.ckpt-400 at step 400)"));
  }

  void aLostStreamIsUnreachable() {
    TaskStatus status = Training(10);
    status.connected = false;
    QCOMPARE(DescribeTask(status, {}).condition, TaskCondition::kUnreachable);
    QCOMPARE(DescribeTask(TaskStatus{}, {}).condition, TaskCondition::kStarting);
  }
};

QTEST_MAIN(TaskLiveStateTest)
#include "tst_task_live_state.moc"
