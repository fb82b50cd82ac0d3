#include "run/RunController.h"

namespace clab::ui {
namespace {

constexpr int kTickMs = 1000;

}  // namespace

RunController::RunController(QString clab_program, QObject* parent)
    : QObject(parent), cluster_(new LocalCluster(std::move(clab_program), this)), monitor_(new RunMonitor(this)) {
  connect(monitor_, &RunMonitor::statusChanged, this, &RunController::taskStateChanged);
  connect(monitor_, &RunMonitor::progress, this, &RunController::progress);
  connect(cluster_, &LocalCluster::taskFinished, this, &RunController::onTaskFinished);
  connect(cluster_, &LocalCluster::runFinished, this, [this](bool ok) {
    updateTicking();
    if (forgotten_) return;
    monitor_->finishWatching();
    updateTicking();
    for (auto it = monitor_->statuses().begin(); it != monitor_->statuses().end(); ++it)
      emit taskStateChanged(it.key());
    emit progress();
    emit runFinished(ok);
  });
  tick_.setInterval(kTickMs);
  connect(&tick_, &QTimer::timeout, this, &RunController::progress);
}

bool RunController::start(const Project& project, QString* error) {
  detach();
  ends_.clear();
  if (!cluster_->start(project, error)) return false;
  forgotten_ = false;
  monitor_->watch(cluster_->addresses(), /*started_here=*/true);
  updateTicking();
  return true;
}

void RunController::stop() { cluster_->stop(); }

void RunController::attach(const QHash<QString, QString>& addresses) {
  if (running() || attached_) return;
  ends_.clear();
  monitor_->watch(addresses);
  attached_ = true;
  updateTicking();
}

void RunController::detach() {
  if (!attached_) return;
  monitor_->stopWatching();
  attached_ = false;
  updateTicking();
}

bool RunController::killTask(const QString& task) { return cluster_->killTask(task); }

bool RunController::restartTask(const QString& task) {
  if (!cluster_->restartTask(task)) return false;
  ends_.remove(task);
  emit taskStateChanged(task);
  return true;
}

void RunController::reset() {
  if (running()) stop();
  detach();
  monitor_->clear();
  ends_.clear();
  forgotten_ = true;
  updateTicking();
  emit progress();
}

TaskLiveState RunController::state(const QString& task) const {
  const auto status = monitor_->statuses().constFind(task);
  const ProcessEnd end = ends_.value(task);
  if (status == monitor_->statuses().cend() && !end.ended()) return NotRunningState();
  if (status == monitor_->statuses().cend()) return DescribeTask(TaskStatus{}, end);
  return DescribeTask(*status, end);
}

void RunController::onTaskFinished(const QString& task, const ProcessEnd& end, const QString& last_lines) {
  if (forgotten_) return;
  ends_.insert(task, end);
  monitor_->taskEnded(task);
  emit taskEnded(task, end, last_lines);
  emit taskStateChanged(task);
}

void RunController::updateTicking() {
  if (running() || attached_) tick_.start();
  else tick_.stop();
}

}  // namespace clab::ui
