#include "monitor/RunMonitor.h"

#include "monitor/TaskWatcher.h"

#include <QDateTime>

namespace clab::ui {
namespace {

constexpr int kDrainIntervalMs = 100;
// Steps per second are measured over at least this long, so the figure does not flicker.
constexpr qint64 kRateWindowMs = 500;
// Training tasks report a step every 100 ms: one that sent none for this long is not stepping
// (its ps died, it waits for others) and its rate is shown as 0 until steps come again.
constexpr qint64 kStepSilenceMs = 1000;
// Tasks report their traffic every second: a link with no report for this long is quiet.
constexpr qint64 kTrafficSilenceMs = 2500;

}  // namespace

RunMonitor::RunMonitor(QObject* parent) : QObject(parent) {
  qRegisterMetaType<ConsoleLine>();
  qRegisterMetaType<PlacementRow>();
  timer_.setInterval(kDrainIntervalMs);
  connect(&timer_, &QTimer::timeout, this, [this] { drain(); });
  clock_.start();
}

RunMonitor::~RunMonitor() = default;

void RunMonitor::watch(const QHash<QString, QString>& addresses, bool started_here) {
  clear();
  started_here_ = started_here;
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
  last_step_ms_.clear();
  placements_.clear();
  traffic_.clear();
  failed_tasks_.clear();
}

void RunMonitor::finishWatching() {
  // The tasks have exited, so their streams end as soon as what is in flight has arrived.
  constexpr auto kCloseWait = std::chrono::milliseconds(3000);
  const auto deadline = std::chrono::steady_clock::now() + kCloseWait;
  for (const auto& watcher : std::as_const(watchers_)) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !watcher->waitUntilClosed(left)) break;
  }
  stopWatching();
}

void RunMonitor::stopWatching() {
  timer_.stop();
  while (drain()) {
  }
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

void RunMonitor::taskEnded(const QString& task) {
  auto status = statuses_.find(task);
  if (status == statuses_.end()) return;
  status->steps_per_second = 0;
  status->stalled = false;
  rate_base_.remove(task);
  last_step_ms_.remove(task);
  for (auto it = traffic_.begin(); it != traffic_.end(); ++it) {
    const QString from = it.key().section('|', 0, 0);
    const QString to = it.key().section('|', 1);
    if ((from == task || to == task) && it->busy) {
      it->busy = false;
      emit trafficChanged(from, to, 0);
    }
  }
  emit statusChanged(task);
  emit progress();
}

void RunMonitor::expireRates(bool* stepped) {
  const qint64 now = clock_.elapsed();
  for (auto it = statuses_.begin(); it != statuses_.end(); ++it) {
    const auto last = last_step_ms_.constFind(it.key());
    if (last == last_step_ms_.cend() || now - *last < kStepSilenceMs) continue;
    const bool stalls = it->phase == TaskState::TRAINING && !it->stalled;
    if (it->steps_per_second == 0 && !stalls) continue;
    it->steps_per_second = 0;
    it->stalled = it->phase == TaskState::TRAINING;
    rate_base_.remove(it.key());
    *stepped = true;
    emit statusChanged(it.key());
  }
  for (auto it = traffic_.begin(); it != traffic_.end(); ++it) {
    if (!it->busy || now - it->arrived_ms < kTrafficSilenceMs) continue;
    it->busy = false;
    emit trafficChanged(it.key().section('|', 0, 0), it.key().section('|', 1), 0);
  }
}

bool RunMonitor::drain() {
  QList<ConsoleLine> lines;
  bool placed = false;
  bool stepped = false;
  // Each task gets an equal share of the drain's budget, so one chatty task cannot starve the
  // others; a task that had more left makes the next drain come at once.
  const size_t share = std::max<size_t>(1, kMaxEventsPerDrain / std::max<qsizetype>(1, watchers_.size()));
  bool behind = false;
  for (auto it = watchers_.begin(); it != watchers_.end(); ++it) {
    TaskStatus& status = statuses_[it.key()];
    const bool connected = it.value()->connected();
    bool changed = connected != status.connected;
    status.connected = connected;
    // What is at the address when the stream is not open.
    ProbeResult probe = connected ? ProbeResult{} : it.value()->problem();
    // Tasks this studio started: one that refuses connections is starting, restarting or
    // gone, and its process (or its launch) says which.
    if (started_here_ && probe.problem == WatchProblem::kRefused) probe = {};
    if (probe.problem != status.problem) {
      status.problem = probe.problem;
      status.problem_detail = QString::fromStdString(probe.detail);
      changed = true;
      if (probe.problem != WatchProblem::kNone)
        lines.append({it.key(), QDateTime::currentMSecsSinceEpoch() / 1000.0, 40, "monitor",
                      tr("cannot watch this task: %1").arg(status.problem_detail)});
      emit watchProblem(it.key(), probe.problem);
    }
    const TaskState::Phase before = status.phase;
    const bool failed_before = status.step_failed;
    const qint64 step_before = status.global_step;
    const qsizetype lines_before = lines.size();
    if (const qint64 missed = it.value()->takeMissed(); missed > 0) {
      status.missed_events += missed;
      lines.append({it.key(), QDateTime::currentMSecsSinceEpoch() / 1000.0, 30, "monitor",
                    tr("%n event(s) of this task were lost: it sent them faster than they could be shown, and its "
                       "server keeps only its latest events for a watcher that falls behind.",
                       nullptr, static_cast<int>(missed))});
    }
    // The notice of a gap takes one line of the task's share.
    const size_t budget = lines.size() > lines_before ? std::max<size_t>(1, share - 1) : share;
    const std::vector<TaskEvent> events = it.value()->take(budget);
    behind |= events.size() == budget;
    for (const TaskEvent& event : events) apply(it.key(), event, &lines, &placed, &stepped);
    if (TaskInfoResponse info; it.value()->takeInfo(&info)) {
      status.devices.clear();
      for (const tensorflow::DeviceAttributes& device : info.devices()) status.devices << DeviceInfo::fromProto(device);
      emit devicesChanged(it.key());
    }
    changed |= status.phase != before || status.step_failed != failed_before || status.global_step != step_before;
    if (changed) emit statusChanged(it.key());
  }
  expireRates(&stepped);
  if (!lines.isEmpty()) emit consoleLines(lines);
  if (placed) emit placementsChanged(placements_);
  if (stepped) emit progress();
  // Behind: drain again as soon as the event loop has looked at its input.
  if (behind && timer_.isActive()) QTimer::singleShot(0, this, [this] { drain(); });
  return behind;
}

void RunMonitor::apply(const QString& task, const TaskEvent& event, QList<ConsoleLine>* lines, bool* placed,
                       bool* stepped) {
  TaskStatus& status = statuses_[task];
  switch (event.kind_case()) {
    case TaskEvent::kState: {
      status.phase = event.state().phase();
      if (status.phase == TaskState::MODEL_READY) {
        status.step_failed = false;
        if (failed_tasks_.remove(task)) emit timelineMark(task, "recovered");
      }
      status.detail = QString::fromStdString(event.state().detail());
      status.uninitialized.clear();
      for (const std::string& name : event.state().uninitialized())
        status.uninitialized << QString::fromStdString(name);
      lines->append({task, event.wall_time(), 20, "state",
                     QString::fromStdString(TaskState::Phase_Name(status.phase)) + ": " + status.detail});
      break;
    }
    case TaskEvent::kStep: {
      status.global_step = event.step().global_step();
      status.local_step = event.step().local_step();
      // A session's first run is always reported (the reporter's first report is immediate).
      if (status.local_step == 1) status.first_step = status.global_step;
      const qint64 now = clock_.elapsed();
      last_step_ms_.insert(task, now);
      status.stalled = false;
      auto base = rate_base_.find(task);
      if (base == rate_base_.end() || status.local_step < base->first) {
        rate_base_.insert(task, {status.local_step, now});
      } else if (now - base->second >= kRateWindowMs) {
        status.steps_per_second =
            1000.0 * static_cast<double>(status.local_step - base->first) / static_cast<double>(now - base->second);
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
      for (const auto& [name, value] : event.hook().values())
        emit scalarReported(task, event.hook().global_step() >= 0 ? event.hook().global_step() : status.global_step,
                            QString::fromStdString(name), value);
      lines->append({task, event.wall_time(), event.hook().level(), QString::fromStdString(event.hook().hook()),
                     QString::fromStdString(event.hook().text())});
      break;
    case TaskEvent::kLog:
      lines->append({task, event.wall_time(), event.log().level(), "log", QString::fromStdString(event.log().text())});
      break;
    case TaskEvent::kError:
      status.step_failed = true;
      status.steps_per_second = 0;
      status.last_error = QString::fromStdString(event.error().code() + ": " + event.error().message());
      *stepped = true;
      if (!failed_tasks_.contains(task)) {
        failed_tasks_.insert(task);
        emit timelineMark(task, "error");
      }
      lines->append({task, event.wall_time(), 40, "error",
                     QString::fromStdString(event.error().code() + ": " + event.error().message())});
      break;
    case TaskEvent::kPlacement: {
      PlacementRow row{task, QString::fromStdString(event.placement().node()),
                       QString::fromStdString(event.placement().op()),
                       QString::fromStdString(event.placement().device())};
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
      if (event.checkpoint().restored()) {
        status.restored_from = QString::fromStdString(event.checkpoint().path());
        status.restored_step = event.checkpoint().global_step();
        status.first_step = -1;  // a new session: its first run is still to come
      }
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
      bool busy = last.busy;
      if (last.wall_time > 0 && event.wall_time() > last.wall_time) {
        const double rate = static_cast<double>(bytes - last.bytes) / (event.wall_time() - last.wall_time);
        emit trafficChanged(task, peer, rate);
        busy = rate > 0;
      }
      last = {bytes, event.wall_time(), clock_.elapsed(), busy};
      break;
    }
    case TaskEvent::KIND_NOT_SET: break;
  }
}

}  // namespace clab::ui
