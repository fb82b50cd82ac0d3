#include "run/TaskLiveState.h"

#include <QCoreApplication>

#include <csignal>

namespace clab::ui {
namespace {

// The words' translation context (lupdate reads the TaskLiveText::tr calls).
class TaskLiveText {
  Q_DECLARE_TR_FUNCTIONS(TaskLiveText)
};

QString SignalName(int signal) {
  switch (signal) {
    case SIGKILL: return QStringLiteral("SIGKILL");
    case SIGTERM: return QStringLiteral("SIGTERM");
    case SIGSEGV: return QStringLiteral("SIGSEGV");
    case SIGABRT: return QStringLiteral("SIGABRT");
    case SIGBUS: return QStringLiteral("SIGBUS");
    case SIGFPE: return QStringLiteral("SIGFPE");
    case SIGILL: return QStringLiteral("SIGILL");
    case SIGINT: return QStringLiteral("SIGINT");
    default: return QStringLiteral("signal %1").arg(signal);
  }
}

QString WithStep(const QString& text, const TaskStatus& status) {
  return status.global_step >= 0 ? TaskLiveText::tr("%1, step %2").arg(text).arg(status.global_step) : text;
}

// After a restore the running task says where it resumed from.
QString WithRestore(const QString& text, const TaskStatus& status) {
  if (status.restored_from.isEmpty()) return text;
  const QString file = status.restored_from.section('/', -1);
  return TaskLiveText::tr("%1 (restored from %2 at step %3)").arg(text, file).arg(status.restored_step);
}

TaskLiveState Make(TaskCondition condition, const QString& text) {
  return {condition, text, ConditionColor(condition)};
}

TaskLiveState FromProcessEnd(const TaskStatus& status, const ProcessEnd& end) {
  switch (end.kind) {
    case ProcessEnd::Kind::kStopped: return Make(TaskCondition::kStopped, TaskLiveText::tr("stopped"));
    case ProcessEnd::Kind::kKilled: return Make(TaskCondition::kKilled, TaskLiveText::tr("killed (SIGKILL)"));
    case ProcessEnd::Kind::kSignalled:
      return Make(TaskCondition::kCrashed, TaskLiveText::tr("crashed (%1)").arg(SignalName(end.code)));
    case ProcessEnd::Kind::kExited:
      if (end.code == 0)
        return Make(TaskCondition::kFinished, status.global_step >= 0
                                                  ? TaskLiveText::tr("finished at step %1").arg(status.global_step)
                                                  : TaskLiveText::tr("finished"));
      return Make(TaskCondition::kFailed, TaskLiveText::tr("exited %1").arg(end.code));
    case ProcessEnd::Kind::kRunning: break;
  }
  return NotRunningState();
}

}  // namespace

TaskLiveState DescribeTask(const TaskStatus& status, const ProcessEnd& end) {
  if (end.ended()) return FromProcessEnd(status, end);
  if (status.phase == TaskState::FAILED) return Make(TaskCondition::kFailed, TaskLiveText::tr("failed"));
  if (status.phase == TaskState::STOPPED) {
    return Make(TaskCondition::kFinished, status.global_step >= 0
                                              ? TaskLiveText::tr("finished at step %1").arg(status.global_step)
                                              : TaskLiveText::tr("finished"));
  }
  if (!status.connected) {
    switch (status.problem) {
      case WatchProblem::kNone: break;
      case WatchProblem::kBadAddress:
        return Make(TaskCondition::kUnreachable, TaskLiveText::tr("unreachable: its host name does not resolve"));
      case WatchProblem::kRefused:
        return Make(TaskCondition::kUnreachable, TaskLiveText::tr("unreachable: nothing listens on its port"));
      case WatchProblem::kNoAnswer:
        return Make(TaskCondition::kUnreachable, TaskLiveText::tr("unreachable: its host does not answer"));
      case WatchProblem::kNotGrpc:
        return Make(TaskCondition::kNotWatchable, TaskLiveText::tr("not a gRPC server: another program has its port"));
      case WatchProblem::kNotClusterLab:
        return Make(TaskCondition::kNotWatchable,
                    TaskLiveText::tr("not a ClusterLab task: a gRPC server without ClusterLab's event stream"));
      case WatchProblem::kTensorFlow:
        return Make(TaskCondition::kNotWatchable,
                    TaskLiveText::tr("a TensorFlow server: it runs, but has no event stream to watch"));
    }
    if (status.phase == TaskState::UNKNOWN) return Make(TaskCondition::kStarting, TaskLiveText::tr("starting"));
    return Make(TaskCondition::kUnreachable, TaskLiveText::tr("unreachable (its event stream was lost)"));
  }
  if (status.step_failed) {
    const QString error = status.last_error.section(':', 0, 0);
    return Make(TaskCondition::kRecovering,
                error.isEmpty() ? TaskLiveText::tr("recovering") : TaskLiveText::tr("recovering after %1").arg(error));
  }
  switch (status.phase) {
    case TaskState::UNKNOWN:
    case TaskState::STARTING: return Make(TaskCondition::kStarting, TaskLiveText::tr("starting"));
    case TaskState::LISTENING:
    case TaskState::CONNECTED: return Make(TaskCondition::kServing, TaskLiveText::tr("listening"));
    case TaskState::WAITING:
      return Make(TaskCondition::kWaiting,
                  status.uninitialized.isEmpty()
                      ? TaskLiveText::tr("waiting")
                      : TaskLiveText::tr("waiting for the chief to initialise %n variable(s)", nullptr,
                                         static_cast<int>(status.uninitialized.size())));
    case TaskState::SESSION_CREATED: return Make(TaskCondition::kInitializing, TaskLiveText::tr("initialising"));
    case TaskState::MODEL_READY:
      return Make(TaskCondition::kReady, WithRestore(TaskLiveText::tr("model ready"), status));
    case TaskState::TRAINING:
      if (status.stalled) return Make(TaskCondition::kStalled, WithStep(TaskLiveText::tr("no steps"), status));
      return Make(TaskCondition::kTraining, WithRestore(WithStep(TaskLiveText::tr("training"), status), status));
    default: break;
  }
  return NotRunningState();
}

TaskLiveState NotRunningState() { return Make(TaskCondition::kNotRunning, TaskLiveText::tr("not running")); }

QColor ConditionColor(TaskCondition condition) {
  switch (condition) {
    case TaskCondition::kNotRunning: return {150, 150, 150};
    case TaskCondition::kStarting:
    case TaskCondition::kWaiting:
    case TaskCondition::kInitializing:
    case TaskCondition::kStalled:
    case TaskCondition::kNotWatchable:
    case TaskCondition::kRecovering: return {235, 170, 40};
    case TaskCondition::kServing:
    case TaskCondition::kReady:
    case TaskCondition::kTraining: return {40, 170, 80};
    case TaskCondition::kFinished:
    case TaskCondition::kStopped: return {70, 120, 210};
    case TaskCondition::kUnreachable:
    case TaskCondition::kKilled:
    case TaskCondition::kCrashed:
    case TaskCondition::kFailed: return {210, 40, 40};
  }
  return {150, 150, 150};
}

QString ConditionName(TaskCondition condition) {
  switch (condition) {
    case TaskCondition::kNotRunning: return "not running";
    case TaskCondition::kStarting: return "starting";
    case TaskCondition::kWaiting: return "waiting";
    case TaskCondition::kInitializing: return "initializing";
    case TaskCondition::kServing: return "serving";
    case TaskCondition::kReady: return "ready";
    case TaskCondition::kTraining: return "training";
    case TaskCondition::kStalled: return "stalled";
    case TaskCondition::kRecovering: return "recovering";
    case TaskCondition::kUnreachable: return "unreachable";
    case TaskCondition::kNotWatchable: return "not watchable";
    case TaskCondition::kFinished: return "finished";
    case TaskCondition::kStopped: return "stopped";
    case TaskCondition::kKilled: return "killed";
    case TaskCondition::kCrashed: return "crashed";
    case TaskCondition::kFailed: return "failed";
  }
  return "?";
}

}  // namespace clab::ui
