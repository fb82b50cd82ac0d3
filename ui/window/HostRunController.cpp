#include "window/HostRunController.h"

#include "cluster/ClusterScene.h"
#include "cluster/TaskItem.h"
#include "launch/LaunchSettingsDialog.h"
#include "launch/PortForwards.h"
#include "launch/RemoteRun.h"
#include "launch/kubernetes/KubernetesExport.h"
#include "launch/project/ProjectFile.h"
#include "monitor/RunMonitor.h"
#include "views/ConsoleView.h"
#include "views/DashboardView.h"
#include "window/MainWindow.h"

#include <QAction>
#include <QDateTime>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QUndoStack>
#include "translations/Retranslate.h"

namespace clab::ui {
HostRunController::HostRunController(MainWindow& window, QMenu* run_menu, QString clab_program)
    : QObject(&window), window_(window) {
  run_ = new RemoteRun(std::move(clab_program), this);
  forwards_ = new PortForwards("kubectl", this);
  on_hosts_ = run_menu->addAction(QString(), this, &HostRunController::editAndRun);
  stop_ = run_menu->addAction(QString(), this, &HostRunController::stopOnHosts);
  attach_ = run_menu->addAction(QString(), this, &HostRunController::attachThroughPortForward);
  new Retranslate(&window, [this] {
    on_hosts_->setText(tr("Run on &hosts..."));
    on_hosts_->setToolTip(
        tr("Start the tasks on their hosts over ssh, or as a SLURM job, or export Kubernetes manifests"));
    stop_->setText(tr("Stop on h&osts"));
    stop_->setToolTip(tr("Stop exactly the tasks the run on hosts started (or cancel its job)"));
    attach_->setText(tr("Attach through &port-forward"));
    attach_->setToolTip(tr("Watch the project's pods in Kubernetes through kubectl port-forward"));
  });

  connect(run_, &RemoteRun::taskProblem, this, [this](const QString& task, const QString& problem) {
    if (TaskItem* item = window_.scene()->item(task)) item->setProblem(problem);
    say(task, 40, problem);
  });
  connect(run_, &RemoteRun::taskStarted, this, [this](const QString& task, const QString& host, qint64 pid) {
    if (TaskItem* item = window_.scene()->item(task)) item->setProblem({});
    say(task, 20, tr("started on %1 (pid %2)").arg(host).arg(pid));
    started_.insert(task);
    window_.statusBar()->showMessage(
        tr("Running on the hosts: %1 of %2 tasks started").arg(started_.size()).arg(window_.project().tasks.size()));
  });
  connect(run_, &RemoteRun::taskEnded, this, [this](const QString& task, int status, bool stopped) {
    say(task, status == 0 || stopped ? 20 : 30,
        stopped ? tr("stopped (status %1)").arg(status) : tr("ended with status %1").arg(status));
  });
  connect(run_, &RemoteRun::note, this, [this](const QString& text) { say({}, 20, text); });
  connect(run_, &RemoteRun::jobState, this, [this](const QString& job, const QString& state, const QString& reason) {
    const QString text = reason.isEmpty() || reason == "None" ? tr("job %1: %2").arg(job, state)
                                                              : tr("job %1: %2 (%3)").arg(job, state, reason);
    window_.statusBar()->showMessage(text);
    // Until the tasks report themselves, their cards show the job's state.
    for (const ProjectTask& task : window_.project().tasks)
      if (!window_.monitor()->statuses().value(task.name()).connected)
        window_.scene()->setTaskStatus(task.name(), state == "PENDING" ? QColor(230, 160, 30) : QColor(150, 150, 150),
                                       text);
    say({}, 20, text);
  });
  connect(run_, &RemoteRun::taskAddress, this, [this](const QString& task, const QString& address) {
    slurm_addresses_.insert(task, address);
    if (TaskItem* item = window_.scene()->item(task)) item->setAddress(address + tr("  (this job)"));
    if (slurm_addresses_.size() == window_.project().tasks.size())
      window_.monitor()->watch(slurm_addresses_, /*started_here=*/true);
  });
  connect(run_, &RemoteRun::finished, this, [this](bool ok, const QString& text) {
    // The tasks have ended: what they sent last is still shown (a failed launch may have
    // tasks that never started, whose streams would not close).
    if (ok) window_.monitor()->finishWatching();
    else window_.monitor()->stopWatching();
    window_.statusBar()->showMessage(ok ? tr("The run on the hosts is over")
                                        : tr("The run on the hosts failed: %1").arg(text));
    updateActions();
  });
  connect(forwards_, &PortForwards::ready, this, [this](const QHash<QString, QString>& addresses) {
    window_.monitor()->watch(addresses);
    for (auto it = addresses.begin(); it != addresses.end(); ++it)
      if (TaskItem* item = window_.scene()->item(it.key())) item->setAddress(it.value() + tr("  (port-forward)"));
    window_.statusBar()->showMessage(tr("Watching %1 pods through kubectl port-forward").arg(addresses.size()));
    updateActions();
  });
  connect(forwards_, &PortForwards::problem, this, [this](const QString& task, const QString& text) {
    if (TaskItem* item = window_.scene()->item(task)) item->setProblem(text);
    say(task, 40, text);
  });
  updateActions();
}

void HostRunController::say(const QString& task, int level, const QString& text) {
  ConsoleLine line{task, static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0, level, "launch", text};
  window_.console()->append({line});
}

void HostRunController::updateActions() {
  stop_->setEnabled(run_->running());
  on_hosts_->setEnabled(!run_->running());
  attach_->setText(forwards_->running() ? tr("Stop the &port-forward") : tr("Attach through &port-forward"));
}

void HostRunController::prepareView() {
  window_.detach();
  window_.console()->clear();
  window_.scene()->resetStatuses();
  window_.dashboard()->startRun();
  slurm_addresses_.clear();
  started_.clear();
}

bool HostRunController::runningOnHosts() const { return run_->running(); }

bool HostRunController::startOnHosts(QString* error) {
  const Project& project = window_.project();
  const QStringList problems = project.validate();
  if (!problems.isEmpty()) {
    *error = tr("the cluster has problems: %1").arg(problems.join("; "));
    return false;
  }
  prepareView();
  // The saved file when it is what the window shows; a copy otherwise.
  const QString path = window_.undoStack()->isClean() ? window_.path() : QString();
  if (!run_->start(project, path, error)) return false;
  if (project.launch.method == "ssh") {
    // Over ssh every task listens at its address in the project.
    QHash<QString, QString> addresses;
    for (const ProjectTask& task : project.tasks) addresses.insert(task.name(), task.address());
    window_.monitor()->watch(addresses, /*started_here=*/true);
  }
  window_.statusBar()->showMessage(
      tr("Starting %1 tasks via %2...").arg(project.tasks.size()).arg(QString::fromStdString(project.launch.method)));
  updateActions();
  return true;
}

void HostRunController::stopOnHosts() {
  run_->stop();
  window_.statusBar()->showMessage(tr("Stopping the run on the hosts..."));
}

bool HostRunController::exportKubernetes(const QString& dir, QString* error) {
  auto file = window_.project().toProjectFile(window_.path());
  if (!file.ok()) {
    *error = QString::fromStdString(std::string(file.status().message()));
    return false;
  }
  auto result = launch::ExportKubernetes(*file, dir.toStdString());
  if (!result.ok()) {
    *error = QString::fromStdString(std::string(result.status().message()));
    return false;
  }
  for (const std::string& written : result->files) say({}, 20, tr("wrote %1").arg(QString::fromStdString(written)));
  for (const std::string& note : result->notes) say({}, 30, QString::fromStdString(note));
  window_.statusBar()->showMessage(
      tr("Wrote %1 manifest files to %2: kubectl apply -f %2").arg(result->files.size()).arg(dir));
  return true;
}

void HostRunController::attachThroughPortForward() {
  if (forwards_->running()) {
    forwards_->stop();
    window_.monitor()->stopWatching();
    updateActions();
    return;
  }
  prepareView();
  forwards_->start(window_.project(), window_.path());
  window_.statusBar()->showMessage(tr("Forwarding the pods' ports with kubectl..."));
  updateActions();
}

void HostRunController::editAndRun() {
  LaunchSettingsDialog dialog(window_.project().launch, window_.project().hosts(), &window_);
  if (dialog.exec() != QDialog::Accepted) return;
  window_.editLaunchSettings(dialog.settings());
  const std::string method = dialog.settings().method;
  QString error;
  if (method == "ssh" || method == "slurm") {
    if (!startOnHosts(&error)) QMessageBox::warning(&window_, tr("Cannot run on the hosts"), error);
  } else if (method == "kubernetes") {
    const QString dir = QFileDialog::getExistingDirectory(&window_, tr("Write the Kubernetes manifests to"));
    if (!dir.isEmpty() && !exportKubernetes(dir, &error))
      QMessageBox::warning(&window_, tr("Cannot write the manifests"), error);
  }
}

}  // namespace clab::ui
