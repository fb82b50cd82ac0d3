// The studio's side of running a project beyond this machine, hooked into the main window's
// Run menu: "On hosts..." edits the launch settings (one undoable edit) and starts the run
// with `clab launch` (RemoteRun) over ssh or through SLURM, or exports Kubernetes manifests;
// "Stop on hosts" stops it; "Attach through port-forward" watches a project running in
// Kubernetes through `kubectl port-forward`. The run is watched as any run is (RunMonitor);
// problems are named on their task's card, and a SLURM job's state shows on the cards until
// the tasks report themselves.
#pragma once

#include "project/Project.h"

#include <QHash>
#include <QObject>
#include <QSet>

class QAction;
class QMenu;

namespace clab::ui {

class MainWindow;
class PortForwards;
class RemoteRun;

class HostRunController : public QObject {
  Q_OBJECT

 public:
  HostRunController(MainWindow& window, QMenu* run_menu, QString clab_program);

  // With the project's launch settings as they are; false with the reason.
  bool startOnHosts(QString* error);
  void stopOnHosts();
  bool runningOnHosts() const;
  // Writes the manifests into `dir`; false with the reason.
  bool exportKubernetes(const QString& dir, QString* error);
  void attachThroughPortForward();

  RemoteRun* remoteRun() const { return run_; }
  PortForwards* portForwards() const { return forwards_; }
  QAction* onHostsAction() const { return on_hosts_; }

 private:
  void editAndRun();
  void prepareView();
  void say(const QString& task, int level, const QString& text);
  void updateActions();

  MainWindow& window_;
  RemoteRun* run_ = nullptr;
  PortForwards* forwards_ = nullptr;
  QAction* on_hosts_ = nullptr;
  QAction* stop_ = nullptr;
  QAction* attach_ = nullptr;
  QHash<QString, QString> slurm_addresses_;  // task -> where its job step put it
  QSet<QString> started_;                    // the tasks that have started on their hosts
};

}  // namespace clab::ui
