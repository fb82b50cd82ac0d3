#include "window/MainWindow.h"

#include "clab/Version.h"
#include "cluster/ClusterScene.h"
#include "cluster/TaskItem.h"
#include "monitor/RunMonitor.h"
#include "project/ClusterFormats.h"
#include "project/ExampleProjects.h"
#include "project/ProjectEditCommand.h"
#include "run/LocalCluster.h"
#include "run/LocalHosts.h"
#include "run/RunController.h"
#include "run/StartCommands.h"
#include "sim/SimulatePanel.h"
#include "teach/LessonPanel.h"
#include "translations/Retranslate.h"
#include "views/CheckpointsView.h"
#include "views/ConsoleView.h"
#include "views/DashboardView.h"
#include "views/PlacementView.h"
#include "views/RunSettingsView.h"
#include "views/TaskPropertiesView.h"
#include "views/WelcomeView.h"
#include "window/GraphEditor.h"
#include "window/GraphMaximiser.h"
#include "window/HostRunController.h"
#include "window/LessonActions.h"
#include "window/MainMenus.h"
#include "window/NoticeBanner.h"
#include "window/RecentProjects.h"
#include "window/ScreenFit.h"
#include "window/SecurityActions.h"

#include <google/protobuf/stubs/common.h>
#include <grpcpp/grpcpp.h>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsView>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

// The library's resources (its icon), registered by whoever makes a window: the studio and
// the tests alike. Q_INIT_RESOURCE must be used outside any namespace.
static void InitUiResources() { Q_INIT_RESOURCE(ui); }

namespace clab::ui {

MainWindow::MainWindow(QString clab_program, QWidget* parent)
    : QMainWindow(parent), clab_program_(std::move(clab_program)) {
  scene_ = new ClusterScene(this);
  undo_ = new QUndoStack(this);
  run_control_ = new RunController(clab_program_, this);
  RunMonitor* monitor = run_control_->monitor();
  buildLayout();
  MainMenus::build(*this);

  connect(run_control_, &RunController::taskStateChanged, this, &MainWindow::onStatusChanged);
  connect(run_control_, &RunController::progress, this, &MainWindow::onProgress);
  connect(monitor, &RunMonitor::consoleLines, console_, &ConsoleView::append);
  connect(monitor, &RunMonitor::placementsChanged, placement_, &PlacementView::setRows);
  connect(monitor, &RunMonitor::placementsChanged, graph_editor_, &GraphEditor::showRunPlacement);
  connect(graph_editor_, &GraphEditor::graphEdited, this, [this](const QString& graph) { project_.graph = graph; });
  connect(monitor, &RunMonitor::trafficChanged, scene_, &ClusterScene::setLinkRate);
  connect(monitor, &RunMonitor::scalarReported, dashboard_, &DashboardView::addScalar);
  connect(monitor, &RunMonitor::timelineMark, dashboard_,
          [this](const QString&, const QString& kind) { dashboard_->mark(kind); });
  connect(monitor, &RunMonitor::devicesChanged, this, &MainWindow::showDevices);
  connect(monitor, &RunMonitor::watchProblem, this,
          [this](const QString& task, WatchProblem problem) { onWatchProblem(task, static_cast<int>(problem)); });
  connect(monitor, &RunMonitor::checkpointSaved, checkpoints_, [this] { checkpoints_->refresh(); });
  connect(run_control_, &RunController::taskEnded, this, &MainWindow::onTaskEnded);
  connect(run_control_, &RunController::runFinished, this, &MainWindow::onRunFinished);
  connect(scene_, &QGraphicsScene::selectionChanged, this, &MainWindow::showSelectedTask);
  connect(welcome_, &WelcomeView::exampleChosen, this, [this](const QString& example) {
    if (openExample(example)) tabs_->setCurrentWidget(dashboard_);
  });
  connect(welcome_, &WelcomeView::recentChosen, this, &MainWindow::openRecent);
  welcome_->setRecent(recent_->paths());
  connect(scene_, &ClusterScene::taskMenuRequested, this, [this](const QString& task, const QPoint& pos) {
    QMenu menu;
    QAction* kill = menu.addAction(tr("Kill (SIGKILL)"), this, [this, task] { killTask(task); });
    kill->setEnabled(cluster()->taskRunning(task));
    QAction* restart = menu.addAction(tr("Restart"), this, [this, task] { restartTask(task); });
    restart->setEnabled(isRunning());
    menu.addSeparator();
    menu.addAction(tr("Remove from the cluster"), this, [this, task] { removeTask(task); })->setEnabled(!isRunning());
    menu.exec(pos);
  });
  connect(properties_, &TaskPropertiesView::addressEdited, this, &MainWindow::editAddress);
  connect(run_settings_, &RunSettingsView::settingsEdited, this, &MainWindow::editRunSettings);
  connect(undo_, &QUndoStack::cleanChanged, this, [this](bool clean) { setWindowModified(!clean); });

  InitUiResources();
  setWindowIcon(QIcon(":/clusterlab.svg"));
  FitToScreen(this, {1280, 860});
  setProject(Project::seed());
}

MainWindow::~MainWindow() {
  // The scene outlives the views while children are deleted; its last selection change
  // must not reach a half-destroyed window.
  scene_->disconnect(this);
  properties_->disconnect(this);  // a field that loses focus now finishes its edit
  run_settings_->disconnect(this);
}

void MainWindow::buildLayout() {
  view_ = new QGraphicsView(scene_, this);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setDragMode(QGraphicsView::RubberBandDrag);
  view_->setMinimumHeight(80);
  view_->viewport()->installEventFilter(this);
  dashboard_ = new DashboardView(this);
  console_ = new ConsoleView(this);
  placement_ = new PlacementView(this);
  tabs_ = new QTabWidget(this);
  welcome_ = new WelcomeView(this);
  tabs_->addTab(welcome_, QString());
  tabs_->addTab(dashboard_, QString());
  tabs_->addTab(console_, QString());
  tabs_->addTab(placement_, QString());
  graph_editor_ = new GraphEditor(undo_, this);
  tabs_->addTab(graph_editor_, QString());
  checkpoints_ = new CheckpointsView(this);
  tabs_->addTab(checkpoints_, QString());
  simulate_ = new SimulatePanel(this);
  tabs_->addTab(simulate_, QString());
  connect(simulate_, &SimulatePanel::platformEdited, this, [this](const QJsonObject& platform) {
    Project after = project_;
    after.platform = platform;
    edit(SimulatePanel::tr("Edit the simulated platform"), after);
  });
  // The pages by their English names, whatever the language (clusterlab --tab NAME).
  const QStringList pages = {"Welcome", "Dashboard", "Console", "Placement", "Graph", "Checkpoints", "Simulate"};
  for (int i = 0; i < pages.size() && i < tabs_->count(); ++i) tabs_->widget(i)->setProperty("page", pages[i]);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->setObjectName("central-splitter");
  splitter->addWidget(view_);
  splitter->addWidget(tabs_);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 3);
  splitter->setSizes({2000, 4000});  // 1:2 of whatever height the window gets
  // The banner sits above the canvas and the tabs: seen at once, and never in the way.
  auto* central = new QWidget(this);
  auto* central_layout = new QVBoxLayout(central);
  central_layout->setContentsMargins(0, 0, 0, 0);
  central_layout->setSpacing(2);
  banner_ = new NoticeBanner(central);
  central_layout->addWidget(banner_);
  central_layout->addWidget(splitter, 1);
  setCentralWidget(central);
  graph_maximiser_ = new GraphMaximiser(this, splitter, view_, tabs_, graph_editor_);
  properties_ = new TaskPropertiesView(this);
  auto* dock = new QDockWidget(this);
  dock->setObjectName("task-properties");
  dock->setWidget(properties_);
  addDockWidget(Qt::RightDockWidgetArea, dock);
  run_settings_ = new RunSettingsView(this);
  auto* settings_dock = new QDockWidget(this);
  settings_dock->setObjectName("run-settings");
  settings_dock->setWidget(run_settings_);
  addDockWidget(Qt::RightDockWidgetArea, settings_dock);
  lessons_ = new LessonPanel(this);
  lessons_dock_ = new QDockWidget(this);
  lessons_dock_->setObjectName("lessons");
  lessons_dock_->setWidget(lessons_);
  addDockWidget(Qt::RightDockWidgetArea, lessons_dock_);
  // In the Task panel's place, a tab beside it: a lesson needs the height.
  tabifyDockWidget(dock, lessons_dock_);
  setTabPosition(Qt::RightDockWidgetArea, QTabWidget::North);
  lessons_dock_->hide();
  connect(lessons_dock_, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (visible) lessons_dock_->raise();
  });
  connect(lessons_, &LessonPanel::actionRequested, this, [this](const LessonPage& page) {
    QString error;
    lessons_->showOutcome(PerformLessonAction(*this, page, &error) ? QString() : error);
  });
  status_step_ = new QLabel(this);
  statusBar()->addPermanentWidget(status_step_);
  new Retranslate(this, [this, dock, settings_dock] {
    const QStringList names = {tr("Welcome"), tr("Dashboard"),   tr("Console"), tr("Placement"),
                               tr("Graph"),   tr("Checkpoints"), tr("Simulate")};
    for (int i = 0; i < names.size() && i < tabs_->count(); ++i) tabs_->setTabText(i, names[i]);
    dock->setWindowTitle(tr("Task"));
    settings_dock->setWindowTitle(tr("Run settings"));
    lessons_dock_->setWindowTitle(tr("Lessons"));
    // What the window says about the run, in the new language.
    if (!isRunning() && !isAttached() && !project_.tasks.isEmpty()) showProjectState();
    for (const ProjectTask& task : project_.tasks) onStatusChanged(task.name());
    showStepText();
  });
}

bool MainWindow::openExample(const QString& example) {
  if (!maybeSave()) return false;
  setProject(example == "digits-mlp"         ? Project::digitsMlp()
             : example == "seed-two-workers" ? Project::seedTwoWorkers()
                                             : Project::seed());
  return true;
}

bool MainWindow::openExampleProject(const QString& id) {
  Project project;
  QString error;
  if (!maybeSave()) return false;
  if (!LoadExampleProject(id, &project, &error)) QMessageBox::warning(this, tr("Cannot open the example"), error);
  else setProject(project);
  return error.isEmpty();
}

void MainWindow::setProject(const Project& project, const QString& path) {
  // Nothing of the previous project's run stays: states, steps, charts, console, devices.
  run_control_->reset();
  banner_->clearAll();
  console_->clear();
  placement_->setRows({});
  scene_->resetStatuses();
  dashboard_->reset();
  status_step_->clear();
  path_ = path;
  undo_->clear();
  applyProject(project);
}

void MainWindow::applyProject(const Project& project) {
  const QString selected = scene_->selectedTask();
  project_ = project;
  scene_->setProject(project_);
  for (auto it = monitor()->statuses().begin(); it != monitor()->statuses().end(); ++it)
    if (TaskItem* item = scene_->item(it.key())) item->setDevices(it->devices);
  fitCluster();
  if (TaskItem* item = scene_->item(selected)) item->setSelected(true);
  showSelectedTask();
  run_settings_->showSettings(project_.run);
  graph_editor_->setProject(project_);
  checkpoints_->setDirectory(project_.run.checkpoint_dir);
  simulate_->setProject(project_);
  QStringList tasks;
  for (const ProjectTask& task : project_.tasks) tasks << task.name();
  dashboard_->setTasks(tasks);
  setWindowTitle(QStringLiteral("%1[*] - ClusterLab Studio").arg(path_.isEmpty() ? project_.name : path_));
  showProjectState();
  updateActions();
}

void MainWindow::showProjectState() {
  const QStringList problems = project_.validate();
  statusBar()->showMessage(problems.isEmpty() ? tr("Ready: press F5 to run the cluster on this machine")
                                              : tr("The cluster has problems: %1").arg(problems.join("; ")));
}

void MainWindow::edit(const QString& text, const Project& after) {
  undo_->push(new ProjectEditCommand(text, project_, after, [this](const Project& p) { applyProject(p); }));
}

void MainWindow::showSelectedTask() {
  const QString task = scene_->selectedTask();
  for (const ProjectTask& candidate : project_.tasks) {
    if (candidate.name() != task) continue;
    QStringList problems;
    for (const QString& problem : project_.validate())
      if (problem.startsWith(task + ": ")) problems << problem.mid(task.size() + 2);
    properties_->showTask(&candidate, problems.join("\n"));
    properties_->showDevices(monitor()->statuses().value(task).devices);
    return;
  }
  properties_->showTask(nullptr, {});
}

void MainWindow::showDevices(const QString& task) {
  const QList<DeviceInfo> devices = monitor()->statuses().value(task).devices;
  if (TaskItem* item = scene_->item(task)) item->setDevices(devices);
  if (scene_->selectedTask() == task) properties_->showDevices(devices);
}

void MainWindow::editAddress(const QString& task, const QString& host, int port) {
  const Project after = project_.withAddress(task, host, port);
  if (after.toJson() != project_.toJson()) edit(tr("Set the address of %1 to %2:%3").arg(task, host).arg(port), after);
}

void MainWindow::editRunSettings(const RunSettings& settings) {
  Project after = project_;
  after.run = settings;
  if (after.toJson() != project_.toJson()) edit(tr("Change the run settings"), after);
}

void MainWindow::editLaunchSettings(const launch::LaunchSettings& settings) {
  Project after = project_;
  after.launch = settings;
  if (after.toJson() != project_.toJson()) edit(tr("Change the launch settings"), after);
}

void MainWindow::editSecurity(const launch::ProjectSecurity& security) {
  Project after = project_;
  after.security = security;
  if (after.toJson() != project_.toJson()) edit(tr("Protect the cluster"), after);
}

void MainWindow::addTask(const QString& job) {
  const Project after = project_.withTaskAdded(job);
  edit(tr("Add %1").arg(after.tasksOf(job).last().name()), after);
}

void MainWindow::removeTask(const QString& task) {
  const Project after = project_.withTaskRemoved(task);
  if (after.tasks.size() != project_.tasks.size()) edit(tr("Remove %1").arg(task), after);
}

bool MainWindow::importCluster(const QString& spec, QString* error) {
  Project after = project_;
  if (!ImportCluster(spec, &after.tasks, error)) return false;
  edit(tr("Import the cluster"), after);
  return true;
}

QString MainWindow::exportCluster(const QString& format, const QString& task) const {
  return ExportCluster(project_, format, task);
}

bool MainWindow::maybeSave() {
  if (undo_->isClean()) return true;
  const auto answer =
      QMessageBox::question(this, tr("Unsaved changes"), tr("The project has changes that are not saved. Save them?"),
                            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) {
    save();
    return undo_->isClean();
  }
  return true;
}

bool MainWindow::openProject(const QString& path, QString* error) {
  Project project;
  if (!Project::load(path, &project, error)) return false;
  setProject(project, path);
  recent_->remember(path);
  return true;
}

void MainWindow::openRecent(const QString& path) {
  if (!maybeSave()) return;
  QString error;
  if (!openProject(path, &error)) {
    QMessageBox::warning(this, tr("Cannot open the project"), error);
    return;
  }
  if (tabs_->currentWidget() == welcome_) tabs_->setCurrentWidget(dashboard_);
}

bool MainWindow::runProject(QString* error, bool here_anyway) {
  QString problem;
  if (!here_anyway && !isRunning() && !isAttached()) {
    // A local run starts every task here: tasks meant for other hosts are said so, on their
    // cards and in the banner, before anything starts.
    QList<ProjectTask> elsewhere;
    for (const ProjectTask& task : project_.tasks) {
      if (IsThisMachine(task.host)) continue;
      elsewhere << task;
      scene_->setTaskStatus(task.name(), ConditionColor(TaskCondition::kFailed),
                            tr("not run: %1 is not this machine").arg(task.host));
    }
    if (!elsewhere.isEmpty()) {
      const auto problem_text = [elsewhere] {
        QStringList names;
        for (const ProjectTask& task : elsewhere)
          names << tr("%1 / task %2 on %3").arg(task.job).arg(task.index).arg(task.host);
        return tr("some tasks are meant for other hosts (%1), and Run starts every task on this machine.")
            .arg(names.join(", "));
      };
      problem = problem_text();
      banner_->showNotice(
          [problem_text] {
            return tr("Cannot run: %1 Use Run on hosts to start them there, or run the whole cluster here on "
                      "127.0.0.1.")
                .arg(problem_text());
          },
          [] { return tr("Run here on 127.0.0.1"); }, [this] { runProject(nullptr, true); });
      statusBar()->showMessage(tr("Cannot run: %1").arg(problem));
      if (error) *error = problem;
      return false;
    }
  }
  console_->clear();
  placement_->setRows({});
  scene_->resetStatuses();
  if (!run_control_->start(project_, &problem)) {
    statusBar()->showMessage(tr("Cannot run: %1").arg(problem));
    banner_->showNotice(tr("Cannot run: %1").arg(problem));
    if (error) *error = problem;
    return false;
  }
  banner_->clearAll();
  dashboard_->startRun();
  if (tabs_->currentWidget() == welcome_) tabs_->setCurrentWidget(dashboard_);
  // Local runs use free ports: the cards show where each task really listens.
  for (auto it = cluster()->addresses().begin(); it != cluster()->addresses().end(); ++it)
    if (TaskItem* item = scene_->item(it.key())) item->setAddress(tr("%1  (this run)").arg(it.value()));
  statusBar()->showMessage(tr("Running %1 tasks on 127.0.0.1").arg(project_.tasks.size()));
  updateActions();
  return true;
}

void MainWindow::attach() {
  if (isRunning() || isAttached()) return;
  QString error;
  if (!SecurityActions::useAccess(project_.security, &error)) {
    banner_->showNotice(tr("Cannot attach: %1").arg(error));
    return statusBar()->showMessage(error);
  }
  banner_->clearAll();
  QHash<QString, QString> addresses;
  for (const ProjectTask& task : project_.tasks) addresses.insert(task.name(), task.address());
  console_->clear();
  placement_->setRows({});
  scene_->resetStatuses();
  dashboard_->startRun();
  run_control_->attach(addresses);
  statusBar()->showMessage(tr("Attached: watching %1 tasks at their addresses").arg(addresses.size()));
  updateActions();
}

void MainWindow::detach() {
  if (!isAttached()) return;
  run_control_->detach();
  statusBar()->showMessage(tr("Detached: the tasks go on without being watched"));
  updateActions();
}

void MainWindow::stopRun() {
  run_control_->stop();
  statusBar()->showMessage(tr("Stopping the run..."));
}

bool MainWindow::isRunning() const { return run_control_ && run_control_->running(); }

bool MainWindow::isAttached() const { return run_control_->attached(); }

RunMonitor* MainWindow::monitor() const { return run_control_->monitor(); }

LocalCluster* MainWindow::cluster() const { return run_control_->cluster(); }

void MainWindow::onStatusChanged(const QString& task) {
  const TaskLiveState state = run_control_->state(task);
  scene_->setTaskStatus(task, state.light, state.text);
  dashboard_->updateTask(task, state, monitor()->statuses().value(task));
}

void MainWindow::onProgress() {
  for (const ProjectTask& task : project_.tasks) onStatusChanged(task.name());
  const qint64 step = monitor()->globalStep();
  const double rate = monitor()->totalStepsPerSecond();
  dashboard_->updateProgress(step, rate);
  showStepText();
}

void MainWindow::showStepText() {
  const qint64 step = monitor()->globalStep();
  status_step_->setText(
      step >= 0 ? tr("global step %1  |  %2 steps/s").arg(step).arg(monitor()->totalStepsPerSecond(), 0, 'f', 0)
                : QString());
}

bool MainWindow::killTask(const QString& task) {
  if (!run_control_->killTask(task)) return false;
  dashboard_->mark("fault");
  ConsoleLine line{task, static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0, 30, "fault",
                   tr("killed with SIGKILL from the studio")};
  console_->append({line});
  return true;
}

bool MainWindow::restartTask(const QString& task) {
  if (!run_control_->restartTask(task)) return false;
  dashboard_->mark("fault");
  ConsoleLine line{task, static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0, 30, "fault",
                   tr("restarted from the studio")};
  console_->append({line});
  return true;
}

void MainWindow::onTaskEnded(const QString& task, const ProcessEnd& end, const QString& last_lines) {
  // A process that ended for a reason worth reading: its last lines go to the console.
  const bool telling = end.kind == ProcessEnd::Kind::kSignalled || end.kind == ProcessEnd::Kind::kKilled ||
                       (end.kind == ProcessEnd::Kind::kExited && end.code != 0);
  if (!telling) return;
  ConsoleLine line{task, static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0, 40, "process",
                   tr("the process ended: %1; its last output:\n%2").arg(run_control_->state(task).text, last_lines)};
  console_->append({line});
}

void MainWindow::onWatchProblem(const QString& task, int problem) {
  if (static_cast<WatchProblem>(problem) == WatchProblem::kNone) return banner_->setTaskProblem(task, {});
  banner_->setTaskProblem(task, [this, task] {
    QString who = task;
    for (const ProjectTask& t : project_.tasks)
      if (t.name() == task) who = tr("%1 / task %2").arg(t.job).arg(t.index);
    const QString detail = monitor()->statuses().value(task).problem_detail;
    return tr("%1: %2").arg(who, tr("%1 (%2)").arg(run_control_->state(task).text, detail));
  });
}

void MainWindow::onRunFinished(bool ok) {
  statusBar()->showMessage(ok ? tr("Run finished at global step %1").arg(monitor()->globalStep())
                              : tr("Run ended with a failed worker: see the Console"));
  updateActions();
}

void MainWindow::updateActions() {
  const bool running = isRunning();
  const bool attached = isAttached();
  if (run_) run_->setEnabled(!running && !attached);
  if (stop_) stop_->setEnabled(running);
  if (checkpoints_) checkpoints_->setRunActive(running || attached);
  if (attach_) {
    attach_->setEnabled(!running);
    attach_->setText(attached ? tr("&Detach") : tr("&Attach to running cluster"));
  }
}

void MainWindow::open() {
  if (!maybeSave()) return;
  const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), {}, tr("ClusterLab projects (*.clab)"));
  if (path.isEmpty()) return;
  QString error;
  if (!openProject(path, &error)) QMessageBox::warning(this, tr("Cannot open the project"), error);
}

void MainWindow::save() {
  if (path_.isEmpty()) return saveAs();
  QString error;
  if (!project_.save(path_, &error)) {
    QMessageBox::warning(this, tr("Cannot save the project"), error);
    return;
  }
  undo_->setClean();
  recent_->remember(path_);
  setWindowTitle(QStringLiteral("%1[*] - ClusterLab Studio").arg(path_));
  statusBar()->showMessage(tr("Saved %1").arg(path_), 3000);
}

void MainWindow::saveAs() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Save project"), path_, tr("ClusterLab projects (*.clab)"));
  if (path.isEmpty()) return;
  path_ = path;
  save();
}

QStringList MainWindow::startCommands() const { return StartCommands(project_, path_); }

void MainWindow::copyStartCommands() {
  const QStringList lines = startCommands();
  QApplication::clipboard()->setText(lines.join('\n'));
  statusBar()->showMessage(tr("Copied %1 start commands").arg(lines.size()), 3000);
}

void MainWindow::about() {
  QMessageBox::about(
      this, tr("About ClusterLab Studio"),
      tr("<b>ClusterLab Studio %1</b><br>Design a cluster of parameter servers and "
         "workers, run it, and watch training live.<br><br>Qt %2, gRPC %3, protobuf %4")
          .arg(CLAB_VERSION, qVersion(), QString::fromStdString(grpc::Version()),
               QString::fromStdString(google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION))));
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  if (view_ && watched == view_->viewport() && event->type() == QEvent::Resize) fitCluster();
  return QMainWindow::eventFilter(watched, event);
}

void MainWindow::fitCluster() {
  const QRectF scene = scene_->sceneRect();
  const QSize viewport = view_->viewport()->size();
  if (scene.isEmpty() || viewport.isEmpty()) return;
  const qreal scale = std::min({1.0, viewport.width() / scene.width(), viewport.height() / scene.height()});
  view_->setTransform(QTransform::fromScale(scale, scale));
  view_->centerOn(scene.center());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  if (isRunning()) {
    run_control_->stop();
    // LocalCluster's destructor kills whatever is left when the window goes.
  }
  event->accept();
}

}  // namespace clab::ui
