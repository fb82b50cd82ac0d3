#include "project/Project.h"

#include "launch/project/ProjectFile.h"
#include "platform/PlatformSpec.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSet>

#include <algorithm>

namespace clab::ui {
namespace {

constexpr int kFormatVersion = 1;

bool ParseAddress(const QString& text, ProjectTask* task, QString* error) {
  const int colon = text.lastIndexOf(':');
  if (colon <= 0) {
    *error = QStringLiteral("'%1' is not host:port").arg(text);
    return false;
  }
  bool ok = false;
  const int port = text.mid(colon + 1).toInt(&ok);
  if (!ok) {
    *error = QStringLiteral("'%1': the port is not a number").arg(text);
    return false;
  }
  task->host = text.left(colon);
  task->port = port;
  return true;
}

}  // namespace

Project Project::seed() {
  Project project;
  project.name = "Seed: x . w on a ps and a worker";
  project.tasks = {{"ps", 0, "127.0.0.1", 2223}, {"worker", 0, "127.0.0.1", 2222}};
  return project;
}

Project Project::seedTwoWorkers() {
  Project project;
  project.name = "Seed on two workers, 20,000 steps";
  project.tasks = {{"ps", 0, "127.0.0.1", 2223}, {"worker", 0, "127.0.0.1", 2222}, {"worker", 1, "127.0.0.1", 2224}};
  project.run.last_step = 20000;
  return project;
}

QStringList Project::programs() {
  QStringList programs;
  for (const std::string& program : launch::ProjectFile::Programs()) programs << QString::fromStdString(program);
  return programs;
}

QStringList Project::hosts() const {
  QStringList names;
  for (const ProjectTask& task : tasks)
    if (!names.contains(task.host)) names << task.host;
  return names;
}

Project Project::digitsMlp() {
  Project project;
  project.name = "Digits MLP on a ps and two workers";
  project.program = "digits-mlp";
  project.tasks = {{"ps", 0, "127.0.0.1", 2223}, {"worker", 0, "127.0.0.1", 2222}, {"worker", 1, "127.0.0.1", 2224}};
  project.run.last_step = 6000;
  return project;
}

QStringList Project::jobs() const {
  QStringList names;
  for (const ProjectTask& task : tasks)
    if (!names.contains(task.job)) names << task.job;
  return names;
}

QList<ProjectTask> Project::tasksOf(const QString& job) const {
  QList<ProjectTask> found;
  for (const ProjectTask& task : tasks)
    if (task.job == job) found << task;
  std::sort(found.begin(), found.end(), [](const ProjectTask& a, const ProjectTask& b) { return a.index < b.index; });
  return found;
}

QString Project::clusterSpec() const {
  QStringList parts;
  for (const QString& job : jobs()) {
    QStringList addresses;
    for (const ProjectTask& task : tasksOf(job)) addresses << task.address();
    parts << job + "=" + addresses.join(',');
  }
  return parts.join(';');
}

QStringList Project::validate() const {
  QStringList problems;
  static const QRegularExpression job_name("^[A-Za-z][A-Za-z0-9_]*$");
  QMap<QString, QString> used;  // address -> task
  for (const ProjectTask& task : tasks) {
    if (!job_name.match(task.job).hasMatch())
      problems << QCoreApplication::translate(
                      "clab::ui::Project",
                      "%1: job name '%2' must start with a letter and hold only letters, digits and _")
                      .arg(task.name(), task.job);
    if (task.port < 1 || task.port > 65535)
      problems << QCoreApplication::translate("clab::ui::Project", "%1: port %2 is out of range (1-65535)")
                      .arg(task.name())
                      .arg(task.port);
    if (task.host.trimmed().isEmpty())
      problems << QCoreApplication::translate("clab::ui::Project", "%1: the host is empty").arg(task.name());
    const QString address = task.address();
    if (used.contains(address))
      problems << QCoreApplication::translate("clab::ui::Project", "%1: %2 is also the address of %3")
                      .arg(task.name(), address, used.value(address));
    else used.insert(address, task.name());
  }
  if (!jobs().contains("ps"))
    problems << QCoreApplication::translate("clab::ui::Project",
                                            "the cluster has no ps job: variables need a parameter server");
  if (!jobs().contains("worker"))
    problems << QCoreApplication::translate("clab::ui::Project",
                                            "the cluster has no worker job: nothing would run the program");
  return problems;
}

Project Project::withAddress(const QString& task, const QString& host, int port) const {
  Project after = *this;
  for (ProjectTask& candidate : after.tasks) {
    if (candidate.name() != task) continue;
    candidate.host = host;
    candidate.port = port;
  }
  return after;
}

Project Project::withTaskAdded(const QString& job) const {
  Project after = *this;
  int port = 2222;
  for (const ProjectTask& task : after.tasks) port = std::max(port, task.port + 1);
  const ProjectTask added{job, static_cast<int>(after.tasksOf(job).size()), "127.0.0.1", port};
  int insert_at = static_cast<int>(after.tasks.size());
  for (int i = 0; i < after.tasks.size(); ++i)
    if (after.tasks[i].job == job) insert_at = i + 1;
  after.tasks.insert(insert_at, added);
  return after;
}

Project Project::withTaskRemoved(const QString& task) const {
  Project after = *this;
  for (int i = 0; i < after.tasks.size(); ++i) {
    if (after.tasks[i].name() != task) continue;
    const ProjectTask removed = after.tasks.takeAt(i);
    for (ProjectTask& other : after.tasks)
      if (other.job == removed.job && other.index > removed.index) --other.index;
    break;
  }
  return after;
}

QJsonObject Project::toJson() const {
  QJsonObject cluster;
  for (const QString& job : jobs()) {
    QJsonArray addresses;
    for (const ProjectTask& task : tasksOf(job)) addresses.append(task.address());
    cluster.insert(job, addresses);
  }
  QJsonObject run_json{{"last_step", run.last_step},
                       {"faithful", run.faithful},
                       {"sync", run.sync},
                       {"max_seconds", run.max_seconds},
                       {"checkpoint_dir", run.checkpoint_dir}};
  // Written only when set, so that a project without an interval reads as before.
  if (run.save_checkpoint_steps > 0) run_json.insert("save_checkpoint_steps", run.save_checkpoint_steps);
  if (run.save_checkpoint_secs > 0) run_json.insert("save_checkpoint_secs", run.save_checkpoint_secs);
  QJsonObject json{{"format", "clusterlab-project"},
                   {"version", kFormatVersion},
                   {"name", name},
                   {"cluster", cluster},
                   {"program", program},
                   {"run", run_json}};
  if (!graph.isEmpty()) json.insert("graph", graph);
  if (!platform.isEmpty()) json.insert("platform", platform);
  // Left out while nothing is set, so that a project saved again reads as it did before.
  if (!launch.IsDefault())
    json.insert("launch", QJsonDocument::fromJson(QByteArray::fromStdString(launch.ToJson().dump())).object());
  if (!security.IsDefault())
    json.insert("security", QJsonDocument::fromJson(QByteArray::fromStdString(security.ToJson().dump())).object());
  return json;
}

StatusOr<launch::ProjectFile> Project::toProjectFile(const QString& path) const {
  const QByteArray json = QJsonDocument(toJson()).toJson(QJsonDocument::Compact);
  auto file = launch::ProjectFile::FromJson(nlohmann::json::parse(json.toStdString(), nullptr, false),
                                            path.isEmpty() ? name.toStdString() : path.toStdString());
  if (file.ok()) file->path = path.toStdString();
  return file;
}

bool Project::fromJson(const QJsonObject& json, Project* project, QString* error) {
  if (json.value("format").toString() != "clusterlab-project") {
    *error = "format: not a ClusterLab project (expected \"format\": \"clusterlab-project\")";
    return false;
  }
  if (json.value("version").toInt() > kFormatVersion) {
    *error = QStringLiteral("version: %1 is newer than this ClusterLab reads (%2)")
                 .arg(json.value("version").toInt())
                 .arg(kFormatVersion);
    return false;
  }
  Project loaded;
  loaded.name = json.value("name").toString("Untitled");
  loaded.program = json.value("program").toString("seed");
  if (!programs().contains(loaded.program)) {
    *error = QStringLiteral("program: '%1' is unknown (known: %2)").arg(loaded.program, programs().join(", "));
    return false;
  }
  const QJsonValue cluster = json.value("cluster");
  if (!cluster.isObject()) {
    *error = "cluster: missing, or not an object of job -> addresses";
    return false;
  }
  const QJsonObject jobs = cluster.toObject();
  for (auto it = jobs.begin(); it != jobs.end(); ++it) {
    if (!it.value().isArray() || it.value().toArray().isEmpty()) {
      *error = QStringLiteral("cluster.%1: wants a non-empty list of \"host:port\"").arg(it.key());
      return false;
    }
    const QJsonArray addresses = it.value().toArray();
    for (int i = 0; i < addresses.size(); ++i) {
      ProjectTask task;
      task.job = it.key();
      task.index = i;
      QString problem;
      if (!addresses[i].isString() || !ParseAddress(addresses[i].toString(), &task, &problem)) {
        *error =
            QStringLiteral("cluster.%1[%2]: %3").arg(it.key()).arg(i).arg(problem.isEmpty() ? "not a string" : problem);
        return false;
      }
      loaded.tasks << task;
    }
  }
  if (json.contains("run") && !json.value("run").isObject()) {
    *error = "run: wants an object of run settings";
    return false;
  }
  const QJsonObject run = json.value("run").toObject();
  // A setting of the wrong type is an error, never quietly replaced by its default.
  auto wrong = [&](const char* name, bool ok, const char* what) {
    if (!run.contains(name) || ok) return false;
    *error = QStringLiteral("run.%1: wants %2").arg(name, what);
    return true;
  };
  if (wrong("last_step", run.value("last_step").isDouble(), "a whole number") ||
      wrong("faithful", run.value("faithful").isBool(), "true or false") ||
      wrong("sync", run.value("sync").isBool(), "true or false") ||
      wrong("max_seconds", run.value("max_seconds").isDouble(), "a number of seconds") ||
      wrong("checkpoint_dir", run.value("checkpoint_dir").isString(), "a path") ||
      wrong("save_checkpoint_steps", run.value("save_checkpoint_steps").isDouble(), "a whole number of steps") ||
      wrong("save_checkpoint_secs", run.value("save_checkpoint_secs").isDouble(), "a whole number of seconds"))
    return false;
  loaded.run.last_step = run.value("last_step").toInteger(200);
  loaded.run.faithful = run.value("faithful").toBool(false);
  loaded.run.sync = run.value("sync").toBool(false);
  loaded.run.max_seconds = run.value("max_seconds").toInt(0);
  loaded.run.checkpoint_dir = run.value("checkpoint_dir").toString();
  loaded.run.save_checkpoint_steps = run.value("save_checkpoint_steps").toInteger(0);
  loaded.run.save_checkpoint_secs = run.value("save_checkpoint_secs").toInt(0);
  if (loaded.run.save_checkpoint_steps < 0 || loaded.run.save_checkpoint_secs < 0) {
    *error = QStringLiteral("run.save_checkpoint_%1: %2 is negative (0: not by %1)")
                 .arg(loaded.run.save_checkpoint_steps < 0 ? "steps" : "secs")
                 .arg(loaded.run.save_checkpoint_steps < 0 ? loaded.run.save_checkpoint_steps
                                                           : loaded.run.save_checkpoint_secs);
    return false;
  }
  if (loaded.run.last_step < 1) {
    *error = QStringLiteral("run.last_step: %1 is not a step (>= 1)").arg(loaded.run.last_step);
    return false;
  }
  if (json.contains("graph") && !json.value("graph").isString()) {
    *error = "graph: wants a GraphDef in protobuf text format, as a string";
    return false;
  }
  loaded.graph = json.value("graph").toString();
  if (json.contains("platform")) {
    if (!json.value("platform").isObject()) {
      *error = "platform: wants an object of hosts, links and topology";
      return false;
    }
    loaded.platform = json.value("platform").toObject();
    const QByteArray text = QJsonDocument(loaded.platform).toJson(QJsonDocument::Compact);
    StatusOr<sim::PlatformSpec> checked = sim::PlatformSpec::FromJsonText(text.toStdString(), "platform");
    if (!checked.ok()) {
      *error = QString::fromStdString(std::string(checked.status().message()));
      return false;
    }
  }
  if (json.contains("launch")) {
    // One reader for the section, the one the command line uses.
    const QByteArray text = json.value("launch").isObject()
                                ? QJsonDocument(json.value("launch").toObject()).toJson(QJsonDocument::Compact)
                                : QByteArray("null");
    auto settings = launch::LaunchSettings::FromJson(nlohmann::json::parse(text.toStdString(), nullptr, false));
    if (!settings.ok()) {
      *error = QString::fromStdString(std::string(settings.status().message()));
      return false;
    }
    loaded.launch = *std::move(settings);
  }
  if (json.contains("security")) {
    const QByteArray text = json.value("security").isObject()
                                ? QJsonDocument(json.value("security").toObject()).toJson(QJsonDocument::Compact)
                                : QByteArray("null");
    auto settings = launch::ProjectSecurity::FromJson(nlohmann::json::parse(text.toStdString(), nullptr, false));
    if (!settings.ok()) {
      *error = QString::fromStdString(std::string(settings.status().message()));
      return false;
    }
    loaded.security = *std::move(settings);
  }
  *project = loaded;
  return true;
}

bool Project::load(const QString& path, Project* project, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    *error = QStringLiteral("%1: %2").arg(path, file.errorString());
    return false;
  }
  QJsonParseError parse;
  const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parse);
  if (parse.error != QJsonParseError::NoError) {
    *error = QStringLiteral("%1: offset %2: %3").arg(path).arg(parse.offset).arg(parse.errorString());
    return false;
  }
  QString problem;
  if (!fromJson(document.object(), project, &problem)) {
    *error = QStringLiteral("%1: %2").arg(path, problem);
    return false;
  }
  return true;
}

bool Project::save(const QString& path, QString* error) const {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    *error = QStringLiteral("%1: %2").arg(path, file.errorString());
    return false;
  }
  file.write(QJsonDocument(toJson()).toJson(QJsonDocument::Indented));
  if (!file.commit()) {
    *error = QStringLiteral("%1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace clab::ui
