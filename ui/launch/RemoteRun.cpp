#include "launch/RemoteRun.h"

#include "clab/distributed/ClusterAccess.h"
#include "launch/observe/LaunchEvents.h"
#include "launch/task/TaskCommand.h"

#include <QRegularExpression>

#include <csignal>

namespace clab::ui {

RemoteRun::RemoteRun(QString clab_program, QObject* parent) : QObject(parent), clab_program_(std::move(clab_program)) {}

RemoteRun::~RemoteRun() {
  if (!running()) return;
  process_->disconnect(this);
  stop();
  // The launch stops its tasks before it exits; give it the time that takes.
  if (!process_->waitForFinished(60000)) process_->kill();
}

bool RemoteRun::running() const { return process_ && process_->state() != QProcess::NotRunning; }

bool RemoteRun::start(const Project& project, const QString& path, QString* error) {
  if (running()) {
    *error = tr("a run on the hosts is already going: stop it first");
    return false;
  }
  const QString method = QString::fromStdString(project.launch.method);
  if (method != "ssh" && method != "slurm") {
    *error = tr("the launch method is %1: choose ssh or slurm for a run on hosts").arg(method);
    return false;
  }
  // The studio watches the launched tasks as a client of the cluster: with the client
  // certificate and token of the project's TLS folder (as this machine sees it), if any.
  auto access = ClusterAccess::Load(project.security.tls_dir, kClientCertificateName, project.security.token_file);
  if (!access.ok()) {
    *error = QString::fromStdString(std::string(access.status().message()));
    return false;
  }
  SetDefaultClusterAccess(*std::move(access));
  QString file = path;
  if (file.isEmpty()) {
    copy_dir_ = std::make_unique<QTemporaryDir>();
    file = copy_dir_->filePath("project.clab");
    if (!copy_dir_->isValid() || !project.save(file, error)) {
      if (error->isEmpty()) *error = tr("cannot write a copy of the project");
      return false;
    }
  }
  QStringList args{"launch", file, "--via", method, "--events"};
  // The studio watches every task; a short run must not end before it does.
  if (method == "ssh")
    args << "--wait_for_watcher_ms" << QString::number(launch::TaskCommandOptions::kWaitForStudioWatchMs);
  command_ = QStringList{clab_program_} + args;
  process_ = std::make_unique<QProcess>();
  process_->setProcessChannelMode(QProcess::MergedChannels);
  outcome_.reset();
  partial_.clear();
  connect(process_.get(), &QProcess::readyRead, this, &RemoteRun::onOutput);
  connect(process_.get(), &QProcess::finished, this, [this](int code, QProcess::ExitStatus) {
    onOutput();
    if (outcome_) {
      emit finished(outcome_->first, outcome_->second);
    } else {
      emit finished(code == 0, tr("clab launch ended with status %1").arg(code));
    }
  });
  process_->start(clab_program_, args);
  if (!process_->waitForStarted(5000)) {
    *error = tr("cannot start %1: %2").arg(clab_program_, process_->errorString());
    return false;
  }
  return true;
}

void RemoteRun::stop() {
  if (running()) ::kill(static_cast<pid_t>(process_->processId()), SIGTERM);
}

void RemoteRun::onOutput() {
  partial_ += QString::fromUtf8(process_->readAll());
  int newline;
  while ((newline = partial_.indexOf('\n')) >= 0) {
    handleLine(partial_.left(newline));
    partial_.remove(0, newline + 1);
  }
}

void RemoteRun::handleLine(const QString& line) {
  const auto event = launch::LaunchEvent::Parse(line.toStdString());
  if (!event) {
    emit note(line);  // the command's own words (a usage error, say)
    return;
  }
  const QString task = QString::fromStdString(event->task);
  const QString text = QString::fromStdString(event->text);
  if (event->event == "started") {
    emit taskStarted(task, QString::fromStdString(event->host), event->pid);
  } else if (event->event == "ended") {
    emit taskEnded(task, event->status, event->stopped);
  } else if (event->event == "problem") {
    emit taskProblem(task, text);
  } else if (event->event == "job") {
    emit jobState(QString::fromStdString(event->job_id), QString::fromStdString(event->state),
                  QString::fromStdString(event->reason));
  } else if (event->event == "note") {
    emit note(text);
  } else if (event->event == "finished") {
    outcome_ = std::make_pair(event->ok, text);
  } else if (event->event == "line") {
    // "clab slurm task: rank 1 is /job:worker/replica:0/task:0 at n1:8889 in ..."
    static const QRegularExpression placed("^clab slurm task: rank \\d+ is (\\S+) at (\\S+)");
    const QRegularExpressionMatch match = placed.match(text);
    if (match.hasMatch()) emit taskAddress(match.captured(1), match.captured(2));
  }
}

}  // namespace clab::ui
