#include "launch/PortForwards.h"

#include "launch/kubernetes/KubernetesNames.h"

#include <QRegularExpression>

namespace clab::ui {

PortForwards::PortForwards(QString kubectl, QObject* parent) : QObject(parent), kubectl_(std::move(kubectl)) {}

PortForwards::~PortForwards() { stop(); }

bool PortForwards::running() const {
  for (const auto& forward : forwards_)
    if (forward->process->state() != QProcess::NotRunning) return true;
  return false;
}

void PortForwards::start(const Project& project, const QString& path) {
  stop();
  // The names the export gave the objects.
  launch::ProjectFile names;
  names.path = path.toStdString();
  names.program = project.program.toStdString();
  const QString object = QString::fromStdString(launch::KubernetesNames::ObjectName(names));
  const QString name_space = QString::fromStdString(project.launch.kubernetes.name_space);
  for (const ProjectTask& task : project.tasks) {
    auto forward = std::make_unique<Forward>();
    forward->task = task.name();
    const QString pod = QString::fromStdString(
        launch::KubernetesNames::PodName(object.toStdString(), task.job.toStdString(), task.index));
    const QStringList args{"-n", name_space, "port-forward", "pod/" + pod, QStringLiteral(":%1").arg(task.port)};
    commands_.insert(task.name(), QStringList{kubectl_} + args);
    forward->process = std::make_unique<QProcess>();
    forward->process->setProcessChannelMode(QProcess::MergedChannels);
    Forward* raw = forward.get();
    connect(forward->process.get(), &QProcess::readyRead, this, [this, raw] { onOutput(raw); });
    connect(forward->process.get(), &QProcess::finished, this, [this, raw](int code, QProcess::ExitStatus) {
      if (!addresses_.contains(raw->task))
        emit problem(raw->task, tr("kubectl port-forward ended (status %1): %2").arg(code).arg(raw->output.trimmed()));
    });
    connect(forward->process.get(), &QProcess::errorOccurred, this, [this, raw](QProcess::ProcessError) {
      emit problem(raw->task, tr("cannot run kubectl: %1").arg(raw->process->errorString()));
    });
    forward->process->start(kubectl_, args);
    forwards_.push_back(std::move(forward));
  }
}

void PortForwards::onOutput(Forward* forward) {
  forward->output += QString::fromUtf8(forward->process->readAll());
  // "Forwarding from 127.0.0.1:40123 -> 2222"
  static const QRegularExpression forwarding("Forwarding from 127\\.0\\.0\\.1:(\\d+) ->");
  const QRegularExpressionMatch match = forwarding.match(forward->output);
  if (!match.hasMatch() || addresses_.contains(forward->task)) return;
  addresses_.insert(forward->task, QStringLiteral("127.0.0.1:%1").arg(match.captured(1)));
  if (addresses_.size() == static_cast<int>(forwards_.size())) emit ready(addresses_);
}

void PortForwards::stop() {
  for (auto& forward : forwards_) {
    forward->process->disconnect(this);
    if (forward->process->state() != QProcess::NotRunning) {
      forward->process->terminate();
      if (!forward->process->waitForFinished(2000)) forward->process->kill();
    }
  }
  forwards_.clear();
  addresses_.clear();
  commands_.clear();
}

}  // namespace clab::ui
