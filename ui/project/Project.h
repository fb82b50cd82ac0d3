// A ClusterLab project (.clab, JSON): the cluster (jobs and their tasks' addresses), the
// program its workers run (the seed example or an example training program) and the run
// settings. Loading names the
// file and the field at fault; saving writes a temporary file and renames it over the old one.
//
//   {"format": "clusterlab-project", "version": 1, "name": "Seed",
//    "cluster": {"ps": ["127.0.0.1:2223"], "worker": ["127.0.0.1:2222"]},
//    "program": "seed",
//    "run": {"last_step": 200, "faithful": false, "max_seconds": 0, "checkpoint_dir": ""},
//    "graph": "node { name: \"x\" op: \"Const\" ... }"}
//
// "graph" (optional) is the graph edited in the studio's Graph tab, a GraphDef in protobuf
// text format; absent, the tab shows the graph the program builds. "launch" (optional) says
// how the cluster runs on real hosts (launch/project/LaunchSettings.h: the method, each
// host's user, ssh port, program and directories); absent, the defaults. "platform"
// (optional) is the platform the simulator runs the project on (hosts, links, topology;
// see sim/platform/PlatformSpec.h), checked when the project loads.
#pragma once

#include "clab/core/Status.h"
#include "launch/project/LaunchSettings.h"
#include "launch/project/ProjectFile.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace clab::ui {

struct ProjectTask {
  QString job;
  int index = 0;
  QString host = "127.0.0.1";
  int port = 0;
  QString address() const { return QStringLiteral("%1:%2").arg(host).arg(port); }
  QString name() const { return QStringLiteral("/job:%1/replica:0/task:%2").arg(job).arg(index); }
};

struct RunSettings {
  qint64 last_step = 200;
  bool faithful = false;
  bool sync = false;  // training programs: synchronous replicas
  int max_seconds = 0;
  QString checkpoint_dir;
  // The chief's checkpoint interval (0 and 0: every 600 s, TensorFlow's default).
  qint64 save_checkpoint_steps = 0;
  int save_checkpoint_secs = 0;
};

class Project {
 public:
  // The seed tutorial's cluster: one ps, one worker, on loopback.
  static Project seed();
  // The seed program on one ps and two workers sharing w, for 20,000 steps: long enough to
  // watch the step rate, the two workers and a fault.
  static Project seedTwoWorkers();
  // The digits MLP (examples/models) trained by two workers: a loss that falls.
  static Project digitsMlp();
  // What a project's workers can run: "seed" and the example training programs.
  static QStringList programs();
  // The hosts the cluster's tasks run on, in the order of the tasks.
  QStringList hosts() const;

  // False with `error` ("file.clab: cluster.ps[0]: port 99999 is out of range").
  static bool load(const QString& path, Project* project, QString* error);
  bool save(const QString& path, QString* error) const;
  QJsonObject toJson() const;
  // The project as the launchers and the command line read it (`path`: its file, if any).
  StatusOr<launch::ProjectFile> toProjectFile(const QString& path = {}) const;
  static bool fromJson(const QJsonObject& json, Project* project, QString* error);

  QString name = "Untitled";
  QString program = "seed";
  QList<ProjectTask> tasks;  // ordered by job, then index
  RunSettings run;
  QString graph;         // a text GraphDef, or empty for the program's own graph
  QJsonObject platform;  // the simulator's platform, or empty for its default
  launch::LaunchSettings launch;
  // Who may use the cluster (the "security" section: TLS folder, token file, listening).
  launch::ProjectSecurity security;

  QStringList jobs() const;
  QList<ProjectTask> tasksOf(const QString& job) const;
  // "ps=127.0.0.1:2223;worker=127.0.0.1:2222" for `clab server --cluster`.
  QString clusterSpec() const;
  // Problems, one line each, naming the task: bad port, duplicate address, empty job.
  QStringList validate() const;

  // Edited copies (this project is left as it is).
  Project withAddress(const QString& task, const QString& host, int port) const;
  // A new task of `job` on 127.0.0.1 with the next free port, after the job's last task.
  Project withTaskAdded(const QString& job) const;
  // Without `task`; the job's later tasks move down one index, so indices stay 0..n-1.
  Project withTaskRemoved(const QString& task) const;
};

}  // namespace clab::ui
