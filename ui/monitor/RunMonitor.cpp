#include "monitor/RunMonitor.h"

#include "monitor/TaskWatcher.h"

namespace clab::ui {
namespace {

constexpr int kDrainIntervalMs = 100;
// Steps per second are measured over at least this long, so the figure does not flicker.
constexpr qint64 kRateWindowMs = 500;

}  // namespace

RunMonitor::RunMonitor(QObject* parent) : QObject(parent) {
  qRegisterMetaType<ConsoleLine>();
  qRegisterMetaType<PlacementRow>();
  timer_.setInterval(kDrainIntervalMs);
  connect(&timer_, &QTimer::timeout, this, &RunMonitor::drain);
  clock_.start();
}

RunMonitor::~RunMonitor() = default;

void RunMonitor::watch(const QHash<QString, QString>& addresses) {
  clear();
  for (auto it = addresses.begin(); it != addresses.end(); ++it) {
    watchers_.insert(it.key(), std::make_shared<TaskWatcher>(it.key(), it.value().toStdString()));
    statuses_.insert(it.key(), TaskStatus{});
  }
  timer_.start();
}

void RunMonitor::clear() {
  timer_.stop();
  watchers_.clear();  // each watcher cancels its stream and joins its thread
  statuses_.clear();
  rate_base_.clear();
  placements_.clear();
  traffic_.clear();
  failed_tasks_.clear();
}

void RunMonitor::stopWatching() {
  drain();
  timer_.stop();
  watchers_.clear();
}

qint64 RunMonitor::globalStep() const {
  qint64 step = -1;
  for (const TaskStatus& status : statuses_) step = std::max(step, status.global_step);
  return step;
}

double RunMonitor::totalStepsPerSecond() const {
  double total = 0;
  for (const TaskStatus& status : statuses_) total += status.steps_per_second;
  return total;
}

void RunMonitor::drain() {
  QList<ConsoleLine> lines;
  bool placed = false;
  bool stepped = false;
  for (auto it = watchers_.begin(); it != watchers_.end(); ++it) {
    TaskStatus& status = statuses_[it.key()];
    const bool connected = it.value()->connected();
    bool changed = connected != status.connected;
    status.connected = connected;
    const TaskState::Phase before = status.phase;
    for (const TaskEvent& event : it.value()->take()) apply(it.key(), event, &lines, &placed, &stepped);
    if (TaskInfoResponse info; it.value()->takeInfo(&info)) {
      status.devices.clear();
      for (const tensorflow::DeviceAttributes& device : info.devices()) status.devices << DeviceInfo::fromProto(device);
      emit devicesChanged(it.key());
    }
    changed |= status.phase != before;
    if (changed) emit statusChanged(it.key());
  }
  if (!lines.isEmpty()) emit consoleLines(lines);
  if (placed) emit placementsChanged(placements_);
  if (stepped) emit progress();
}

void RunMonitor::apply(const QString& task, const TaskEvent& event, QList<ConsoleLine>* lines, bool* placed,
                       bool* stepped) {
  TaskStatus& status = statuses_[task];
  switch (event.kind_case()) {
    case TaskEvent::kState: {
      status.phase = event.state().phase();
      if (status.phase == TaskState::MODEL_READY && failed_tasks_.remove(task)) emit timelineMark(task, "recovered");
      status.detail = QString::fromStdString(event.state().detail());
      status.uninitialized.clear();
      for (const std::string& name : event.state().uninitialized()) status.uninitialized << QString::fromStdString(name);
      lines->append({task, event.wall_time(), 20, "state",
                     QString::fromStdString(TaskState::Phase_Name(status.phase)) + ": " + status.detail});
      break;
    }
    case TaskEvent::kStep: {
      status.global_step = event.step().global_step();
      status.local_step = event.step().local_step();
      const qint64 now = clock_.elapsed();
      auto base = rate_base_.find(task);
      if (base == rate_base_.end() || status.local_step < base->first) {
        rate_base_.insert(task, {status.local_step, now});
      } else if (now - base->second >= kRateWindowMs) {
        status.steps_per_second = 1000.0 * static_cast<double>(status.local_step - base->first) /
                                  static_cast<double>(now - base->second);
        *base = {status.local_step, now};
      }
      if (event.step().finished()) status.steps_per_second = 0;
      // Steps flowing means training, whatever the last state event said.
      if (!event.step().finished() &&
          (status.phase == TaskState::MODEL_READY || status.phase == TaskState::SESSION_CREATED))
        status.phase = TaskState::TRAINING;
      *stepped = true;
      break;
    }
    case TaskEvent::kHook:
      if (auto loss = event.hook().values().find("loss"); loss != event.hook().values().end())
        emit lossReported(task, event.hook().global_step() >= 0 ? event.hook().global_step() : status.global_step,
                          loss->second);
      lines->append({task, event.wall_time(), event.hook().level(), QString::fromStdString(event.hook().hook()),
                     QString::fromStdString(event.hook().text())});
      break;
    case TaskEvent::kLog:
      lines->append({task, event.wall_time(), event.log().level(), "log", QString::fromStdString(event.log().text())});
      break;
    case TaskEvent::kError:
      if (!failed_tasks_.contains(task)) {
        failed_tasks_.insert(task);
        emit timelineMark(task, "error");
      }
      lines->append({task, event.wall_time(), 40, "error",
                     QString::fromStdString(event.error().code() + ": " + event.error().message())});
      break;
    case TaskEvent::kPlacement: {
      PlacementRow row{task, QString::fromStdString(event.placement().node()),
                       QString::fromStdString(event.placement().op()), QString::fromStdString(event.placement().device())};
      bool replaced = false;
      for (PlacementRow& existing : placements_) {
        if (existing.task == row.task && existing.node == row.node) {
          existing = row;
          replaced = true;
        }
      }
      if (!replaced) placements_.append(row);
      *placed = true;
      break;
    }
    case TaskEvent::kCheckpoint:
      emit checkpointSaved(task, QString::fromStdString(event.checkpoint().path()), event.checkpoint().global_step());
      lines->append({task, event.wall_time(), 20, "checkpoint",
                     QStringLiteral("%1 %2 at step %3")
                         .arg(event.checkpoint().restored() ? "restored" : "saved",
                              QString::fromStdString(event.checkpoint().path()))
                         .arg(event.checkpoint().global_step())});
      break;
    case TaskEvent::kTraffic: {
      const QString peer = QString::fromStdString(event.traffic().peer());
      const qint64 bytes = event.traffic().bytes_sent() + event.traffic().bytes_received();
      TrafficSample& last = traffic_[task + "|" + peer];
      if (last.wall_time > 0 && event.wall_time() > last.wall_time)
        emit trafficChanged(task, peer, static_cast<double>(bytes - last.bytes) / (event.wall_time() - last.wall_time));
      last = {bytes, event.wall_time()};
      break;
    }
    case TaskEvent::KIND_NOT_SET:
      break;
  }
}

}  // namespace clab::ui
