#include "project/ClusterFormats.h"

#include "clab/distributed/ClusterSpec.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace clab::ui {

bool ImportCluster(const QString& spec, QList<ProjectTask>* tasks, QString* error) {
  auto cluster = ClusterSpec::Parse(spec.trimmed().toStdString());
  if (!cluster.ok()) {
    *error = QString::fromStdString(std::string(cluster.status().message()));
    return false;
  }
  QList<ProjectTask> imported;
  for (const auto& [job, job_tasks] : cluster->all_jobs()) {
    for (const auto& [index, address] : job_tasks) {
      auto host_port = HostPort::Parse(address);
      if (!host_port.ok()) {
        *error = QString::fromStdString(std::string(host_port.status().message()));
        return false;
      }
      imported << ProjectTask{QString::fromStdString(job), index, QString::fromStdString(host_port->host),
                              host_port->port};
    }
  }
  *tasks = imported;
  return true;
}

QString ExportCluster(const Project& project, const QString& format, const QString& task) {
  auto cluster = ClusterSpec::Parse(project.clusterSpec().toStdString());
  if (!cluster.ok()) return {};
  if (format == "Python dict") return QString::fromStdString(cluster->ToPythonDict());
  const QJsonObject spec = QJsonDocument::fromJson(QByteArray::fromStdString(cluster->ToJson())).object();
  if (format != "TF_CONFIG") return QString::fromUtf8(QJsonDocument(spec).toJson(QJsonDocument::Compact));
  QString job = "worker";
  int index = 0;
  for (const ProjectTask& candidate : project.tasks) {
    if (candidate.name() == task) {
      job = candidate.job;
      index = candidate.index;
    }
  }
  const QJsonObject config{{"cluster", spec}, {"task", QJsonObject{{"type", job}, {"index", index}}}};
  return QString::fromUtf8(QJsonDocument(config).toJson(QJsonDocument::Compact));
}

}  // namespace clab::ui
