// ClusterLab Studio's main window: the cluster canvas on top; below, the dashboard (global
// step, steps per second, each task's state), the console and the placement table. Run
// starts the project's cluster on this machine (LocalCluster) and watches every task's
// event stream (RunMonitor); Stop ends exactly the processes it started.
#pragma once

#include "project/Project.h"

#include <QMainWindow>
#include <QMap>

class QAction;
class QDockWidget;
class QGraphicsView;
class QLabel;
class QMenu;
class QTabWidget;
class QUndoStack;

namespace clab::ui {

class CheckpointsView;
class ClusterScene;
class ConsoleView;
class DashboardView;
class GraphEditor;
class GraphMaximiser;
class HostRunController;
class SecurityActions;
class LessonPanel;
class LocalCluster;
class NoticeBanner;
class PlacementView;
class RecentProjects;
class RunController;
class RunMonitor;
struct ProcessEnd;
class RunSettingsView;
class SimulatePanel;
class TaskPropertiesView;
class WelcomeView;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  // `clab_program`: the `clab` executable that runs the tasks.
  explicit MainWindow(QString clab_program, QWidget* parent = nullptr);
  ~MainWindow() override;

  // A new document: the undo history starts empty and the project counts as saved.
  void setProject(const Project& project, const QString& path = {});
  // Edits, each one undoable step.
  void editAddress(const QString& task, const QString& host, int port);
  void addTask(const QString& job);
  void removeTask(const QString& task);
  void editRunSettings(const RunSettings& settings);
  void editLaunchSettings(const launch::LaunchSettings& settings);
  void editSecurity(const launch::ProjectSecurity& security);
  // Replaces the cluster with `spec` (inline, ClusterSpec JSON or TF_CONFIG); false with a
  // message naming what is wrong.
  bool importCluster(const QString& spec, QString* error);
  // The cluster as ClusterSpec JSON, as the Python dict the seed writes, or as the TF_CONFIG
  // of `task`.
  QString exportCluster(const QString& format, const QString& task = {}) const;
  bool openProject(const QString& path, QString* error);
  // Opens a built-in example ("seed", "seed-two-workers", "digits-mlp") after offering to
  // save unsaved changes; false when the user cancels.
  bool openExample(const QString& example);
  // Opens the example project file `id` (File > Examples: "digits-cnn" for
  // examples/projects/digits-cnn.clab) after offering to save; false when it was not opened.
  bool openExampleProject(const QString& id);
  const Project& project() const { return project_; }
  // The project's file ("" until it is saved).
  const QString& path() const { return path_; }

  // Starts the cluster; false with the reason shown in the banner and the status bar and
  // returned. A project with tasks on other hosts is refused unless `here_anyway` (then
  // every task runs on 127.0.0.1, as always in a local run).
  bool runProject(QString* error = nullptr, bool here_anyway = false);
  void stopRun();
  bool isRunning() const;
  // Watches tasks already running at the project's own addresses (real hosts, or servers
  // started by hand) without starting anything; detach() ends the watch.
  void attach();
  void detach();
  bool isAttached() const;
  // Fault injection on a running task (also on the canvas's right-click menu).
  bool killTask(const QString& task);
  bool restartTask(const QString& task);

  DashboardView* dashboard() const { return dashboard_; }
  ConsoleView* console() const { return console_; }
  PlacementView* placement() const { return placement_; }
  CheckpointsView* checkpoints() const { return checkpoints_; }
  RunController* runControl() const { return run_control_; }
  RunMonitor* monitor() const;
  LocalCluster* cluster() const;
  ClusterScene* scene() const { return scene_; }
  QTabWidget* tabs() const { return tabs_; }
  QUndoStack* undoStack() const { return undo_; }
  TaskPropertiesView* properties() const { return properties_; }
  RunSettingsView* runSettings() const { return run_settings_; }
  // The command line of each task, as "Copy start commands" puts them on the clipboard.
  QStringList startCommands() const;
  GraphEditor* graphEditor() const { return graph_editor_; }
  LessonPanel* lessons() const { return lessons_; }
  HostRunController* hostRun() const { return host_run_; }
  SecurityActions* security() const { return security_; }
  SimulatePanel* simulate() const { return simulate_; }
  QDockWidget* lessonsDock() const { return lessons_dock_; }
  // What went wrong with the last Run or watch, over the canvas and the dashboard.
  NoticeBanner* banner() const { return banner_; }

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  friend class MainMenus;  // builds the menus and toolbar on the window's actions and slots

  bool eventFilter(QObject* watched, QEvent* event) override;
  // Shows the whole cluster, never larger than life.
  void fitCluster();
  void applyProject(const Project& project);  // what undo and redo call
  // "Ready" or the project's problems, in the status bar.
  void showProjectState();
  void edit(const QString& text, const Project& after);
  void showSelectedTask();
  void showDevices(const QString& task);
  bool maybeSave();
  void openRecent(const QString& path);
  void buildLayout();
  void onStatusChanged(const QString& task);
  void onProgress();
  void showStepText();  // global step and rate in the status bar
  void onTaskEnded(const QString& task, const ProcessEnd& end, const QString& last_lines);
  void onRunFinished(bool ok);
  void onWatchProblem(const QString& task, int problem);
  void updateActions();
  void saveAs();
  void save();
  void open();
  void copyStartCommands();
  void about();

  const QString clab_program_;
  Project project_;
  QString path_;
  ClusterScene* scene_ = nullptr;
  QGraphicsView* view_ = nullptr;
  DashboardView* dashboard_ = nullptr;
  ConsoleView* console_ = nullptr;
  PlacementView* placement_ = nullptr;
  CheckpointsView* checkpoints_ = nullptr;
  WelcomeView* welcome_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QUndoStack* undo_ = nullptr;
  TaskPropertiesView* properties_ = nullptr;
  RunSettingsView* run_settings_ = nullptr;
  GraphEditor* graph_editor_ = nullptr;
  GraphMaximiser* graph_maximiser_ = nullptr;
  LessonPanel* lessons_ = nullptr;
  SimulatePanel* simulate_ = nullptr;
  QDockWidget* lessons_dock_ = nullptr;
  RunController* run_control_ = nullptr;
  QLabel* status_step_ = nullptr;
  NoticeBanner* banner_ = nullptr;
  QAction* run_ = nullptr;
  QAction* stop_ = nullptr;
  QAction* attach_ = nullptr;
  RecentProjects* recent_ = nullptr;
  HostRunController* host_run_ = nullptr;
  SecurityActions* security_ = nullptr;
};

}  // namespace clab::ui
