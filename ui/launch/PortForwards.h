// Reaching the tasks of a project running in Kubernetes (what `clab export --k8s` wrote)
// from this machine: one `kubectl port-forward pod/NAME :PORT` per task, each on a free
// local port that kubectl picks and names; once every task is forwarded, the studio
// watches them at 127.0.0.1:<local port>.
#pragma once

#include "project/Project.h"

#include <QHash>
#include <QObject>
#include <QProcess>

#include <memory>
#include <vector>

namespace clab::ui {

class PortForwards : public QObject {
  Q_OBJECT

 public:
  explicit PortForwards(QString kubectl = "kubectl", QObject* parent = nullptr);
  ~PortForwards() override;

  // One kubectl per task, in the namespace of the project's Kubernetes settings; `path` is
  // the project's file, whose name the exported objects carry.
  void start(const Project& project, const QString& path);
  void stop();
  bool running() const;
  // Task -> "127.0.0.1:PORT" so far.
  const QHash<QString, QString>& addresses() const { return addresses_; }
  // The command line for `task`, for people who want to run it by hand.
  QStringList commandFor(const QString& task) const { return commands_.value(task); }

 signals:
  // Every task is forwarded: watch them at these addresses.
  void ready(const QHash<QString, QString>& addresses);
  void problem(const QString& task, const QString& text);

 private:
  struct Forward {
    QString task;
    std::unique_ptr<QProcess> process;
    QString output;
  };
  void onOutput(Forward* forward);

  const QString kubectl_;
  std::vector<std::unique_ptr<Forward>> forwards_;
  QHash<QString, QString> addresses_;
  QHash<QString, QStringList> commands_;
};

}  // namespace clab::ui
