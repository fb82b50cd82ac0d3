#include "run/LocalCluster.h"

#include "clab/distributed/ClusterAccess.h"
#include "launch/task/TaskCommand.h"
#include "network/LoopbackPorts.h"

#include <QPointer>
#include <QSaveFile>
#include <QTimer>

#include <csignal>

namespace clab::ui {
namespace {

constexpr int kStopGraceMs = 3000;
constexpr int kRecentLines = 20;

}  // namespace

LocalCluster::LocalCluster(QString clab_program, QObject* parent)
    : QObject(parent), clab_program_(std::move(clab_program)) {}

LocalCluster::~LocalCluster() {
  for (auto& task : tasks_) {
    if (task->process && task->process->state() != QProcess::NotRunning) {
      task->process->disconnect(this);
      task->process->kill();
      task->process->waitForFinished(2000);
    }
  }
}

bool LocalCluster::running() const {
  for (const auto& task : tasks_)
    if (!task->finished) return true;
  return false;
}

bool LocalCluster::stopping() const {
  for (const auto& task : tasks_)
    if (!task->finished && task->stop_requested) return true;
  return false;
}

QList<qint64> LocalCluster::pids() const {
  QList<qint64> pids;
  for (const auto& task : tasks_)
    if (task->process && task->process->state() != QProcess::NotRunning) pids << task->process->processId();
  return pids;
}

bool LocalCluster::start(const Project& project, QString* error) {
  if (running()) {
    *error = "a run is already going: stop it first";
    return false;
  }
  const QStringList problems = project.validate();
  if (!problems.isEmpty()) {
    *error = "the cluster has problems: " + problems.join("; ");
    return false;
  }
  const StatusOr<std::vector<int>> ports = tools::PickFreeLoopbackPorts(static_cast<int>(project.tasks.size()));
  if (!ports.ok()) {
    *error = QString::fromStdString(std::string(ports.status().message()));
    return false;
  }
  // The same cluster, moved to this machine's loopback.
  Project local = project;
  for (int i = 0; i < local.tasks.size(); ++i) {
    local.tasks[i].host = "127.0.0.1";
    local.tasks[i].port = (*ports)[static_cast<size_t>(i)];
  }
  const QString spec = local.clusterSpec();
  QString graph_path;
  if (!project.graph.isEmpty()) {
    graph_dir_ = std::make_unique<QTemporaryDir>();
    graph_path = graph_dir_->filePath("graph.pbtxt");
    QSaveFile file(graph_path);
    const QByteArray text = project.graph.toUtf8();
    if (!graph_dir_->isValid() || !file.open(QIODevice::WriteOnly) || file.write(text) != text.size() ||
        !file.commit()) {
      *error = QStringLiteral("cannot write the project's graph to %1: %2").arg(graph_path, file.errorString());
      return false;
    }
  }
  tasks_.clear();
  ++run_number_;
  addresses_.clear();
  commands_.clear();
  workers_failed_ = false;
  auto file = local.toProjectFile();
  if (!file.ok()) {
    *error = QString::fromStdString(std::string(file.status().message()));
    return false;
  }
  // The studio watches the tasks as a client of the cluster: its certificate and token.
  auto access = ClusterAccess::Load(file->security.tls_dir, kClientCertificateName, file->security.token_file);
  if (!access.ok()) {
    *error = QString::fromStdString(std::string(access.status().message()));
    return false;
  }
  SetDefaultClusterAccess(*std::move(access));
  for (const ProjectTask& task_def : local.tasks) {
    auto task = std::make_unique<Task>();
    task->name = task_def.name();
    task->is_worker = task_def.job == "worker";
    // The same command lines as on real hosts; this studio stops the ps itself.
    launch::TaskCommandOptions command;
    command.cluster = spec.toStdString();
    command.job = task_def.job.toStdString();
    command.index = task_def.index;
    command.graph_path = graph_path.toStdString();
    command.checkpoint_dir = project.run.checkpoint_dir.toStdString();
    // The studio watches every task; a short run must not end before it does.
    command.wait_for_watcher_ms = launch::TaskCommandOptions::kWaitForStudioWatchMs;
    command.until_workers_done = false;
    QStringList args;
    for (const std::string& arg : launch::TaskArguments(*file, command)) args << QString::fromStdString(arg);
    addresses_.insert(task->name, task_def.address());
    commands_.insert(task->name, QStringList{clab_program_} + args);
    task->args = args;
    startProcess(task.get());
    tasks_.push_back(std::move(task));
  }
  for (const auto& task : tasks_) {
    if (!task->process->waitForStarted(5000)) {
      *error = QStringLiteral("cannot start %1: %2").arg(clab_program_, task->process->errorString());
      stop();
      return false;
    }
  }
  return true;
}

void LocalCluster::startProcess(Task* task) {
  if (task->process) task->process->disconnect(this);
  task->process = std::make_unique<QProcess>();
  task->process->setProcessChannelMode(QProcess::MergedChannels);
  task->finished = false;
  task->stop_requested = false;
  task->kill_requested = false;
  task->partial.clear();
  connect(task->process.get(), &QProcess::readyRead, this, [this, task] { onOutput(task); });
  connect(task->process.get(), &QProcess::finished, this,
          [this, task](int code, QProcess::ExitStatus status) { onFinished(task, code, status); });
  task->process->start(clab_program_, task->args);
}

LocalCluster::Task* LocalCluster::find(const QString& name) const {
  for (const auto& task : tasks_)
    if (task->name == name) return task.get();
  return nullptr;
}

bool LocalCluster::taskRunning(const QString& name) const {
  Task* task = find(name);
  return task && task->process && task->process->state() != QProcess::NotRunning;
}

bool LocalCluster::killTask(const QString& name) {
  Task* task = find(name);
  if (!task || !taskRunning(name)) return false;
  task->kill_requested = true;
  task->process->kill();
  return true;
}

bool LocalCluster::restartTask(const QString& name) {
  Task* task = find(name);
  if (!task || !running()) return false;
  if (taskRunning(name)) {
    task->process->disconnect(this);
    task->process->kill();
    task->process->waitForFinished(3000);
  }
  startProcess(task);
  return task->process->waitForStarted(5000);
}

void LocalCluster::stop() {
  for (auto& task : tasks_) {
    if (task->finished || !task->process) continue;
    task->stop_requested = true;
    if (task->process->state() != QProcess::NotRunning) ::kill(static_cast<pid_t>(task->process->processId()), SIGTERM);
  }
  // Tasks that ignore SIGTERM are killed after a grace period: only the processes asked to
  // stop here, and only if they are still this run's (a new run may have started meanwhile).
  std::vector<QPointer<QProcess>> stopping;
  for (auto& task : tasks_)
    if (task->stop_requested && !task->finished && task->process) stopping.emplace_back(task->process.get());
  QTimer::singleShot(kStopGraceMs, this, [this, stopping, run = run_number_] {
    if (run != run_number_) return;
    for (const QPointer<QProcess>& process : stopping)
      if (process && process->state() != QProcess::NotRunning) process->kill();
  });
}

void LocalCluster::onOutput(Task* task) {
  task->partial += QString::fromUtf8(task->process->readAll());
  const int last_newline = task->partial.lastIndexOf('\n');
  if (last_newline < 0) return;
  QStringList lines = task->partial.left(last_newline).split('\n');
  task->partial = task->partial.mid(last_newline + 1);
  task->recent += lines;
  if (task->recent.size() > kRecentLines) task->recent = task->recent.mid(task->recent.size() - kRecentLines);
  emit taskOutput(task->name, lines);
}

void LocalCluster::onFinished(Task* task, int exit_code, QProcess::ExitStatus status) {
  onOutput(task);
  task->finished = true;
  ProcessEnd end;
  end.code = exit_code;  // for a CrashExit, QProcess gives the signal's number
  if (task->kill_requested) end.kind = ProcessEnd::Kind::kKilled;
  else if (task->stop_requested) end.kind = ProcessEnd::Kind::kStopped;
  else end.kind = status == QProcess::CrashExit ? ProcessEnd::Kind::kSignalled : ProcessEnd::Kind::kExited;
  const bool failed = end.kind == ProcessEnd::Kind::kSignalled || end.kind == ProcessEnd::Kind::kKilled ||
                      (end.kind == ProcessEnd::Kind::kExited && exit_code != 0);
  if (task->is_worker && failed) workers_failed_ = true;
  emit taskFinished(task->name, end, task->recent.join('\n'));

  bool workers_running = false;
  bool others_running = false;
  for (const auto& t : tasks_) {
    if (t->finished) continue;
    (t->is_worker ? workers_running : others_running) = true;
  }
  if (!workers_running && others_running) {
    stop();  // the program is done: the servers that only served it can go
  } else if (!workers_running && !others_running) {
    emit runFinished(!workers_failed_);
  }
}

}  // namespace clab::ui
