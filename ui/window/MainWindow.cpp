#include "window/MainWindow.h"

#include "clab/Version.h"
#include "cluster/ClusterScene.h"
#include "cluster/TaskItem.h"
#include "monitor/RunMonitor.h"
#include "run/LocalCluster.h"
#include "views/ConsoleView.h"
#include "views/DashboardView.h"
#include "views/PlacementView.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDateTime>
#include <QFileDialog>
#include <QGraphicsView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <grpcpp/grpcpp.h>
#include <google/protobuf/stubs/common.h>

namespace clab::ui {

MainWindow::MainWindow(QString clab_program, QWidget* parent)
    : QMainWindow(parent), clab_program_(std::move(clab_program)) {
  scene_ = new ClusterScene(this);
  monitor_ = new RunMonitor(this);
  cluster_ = new LocalCluster(clab_program_, this);
  buildLayout();
  buildActions();

  connect(monitor_, &RunMonitor::statusChanged, this, &MainWindow::onStatusChanged);
  connect(monitor_, &RunMonitor::progress, this, &MainWindow::onProgress);
  connect(monitor_, &RunMonitor::consoleLines, console_, &ConsoleView::append);
  connect(monitor_, &RunMonitor::placementsChanged, placement_, &PlacementView::setRows);
  connect(cluster_, &LocalCluster::taskFinished, this, &MainWindow::onTaskFinished);
  connect(cluster_, &LocalCluster::runFinished, this, &MainWindow::onRunFinished);

  setWindowIcon(QIcon(":/clusterlab.svg"));
  resize(1280, 860);
  setProject(Project::Seed());
}

MainWindow::~MainWindow() = default;

void MainWindow::buildLayout() {
  view_ = new QGraphicsView(scene_, this);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setDragMode(QGraphicsView::RubberBandDrag);
  view_->setMinimumHeight(220);
  view_->viewport()->installEventFilter(this);
  dashboard_ = new DashboardView(this);
  console_ = new ConsoleView(this);
  placement_ = new PlacementView(this);
  tabs_ = new QTabWidget(this);
  tabs_->addTab(dashboard_, "Dashboard");
  tabs_->addTab(console_, "Console");
  tabs_->addTab(placement_, "Placement");
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(view_);
  splitter->addWidget(tabs_);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 3);
  setCentralWidget(splitter);
  status_step_ = new QLabel(this);
  statusBar()->addPermanentWidget(status_step_);
}

void MainWindow::buildActions() {
  QMenu* file = menuBar()->addMenu("&File");
  QAction* open_action = file->addAction("&Open...", this, &MainWindow::open);
  open_action->setShortcut(QKeySequence::Open);
  QAction* save_action = file->addAction("&Save", this, &MainWindow::save);
  save_action->setShortcut(QKeySequence::Save);
  file->addAction("Save &As...", this, &MainWindow::saveAs)->setShortcut(QKeySequence::SaveAs);
  QMenu* examples = file->addMenu("&Examples");
  examples->addAction("Seed: x . w on a ps and a worker", this, [this] { setProject(Project::Seed()); });
  examples->addAction("Seed on two workers, 20,000 steps", this, [this] { setProject(Project::SeedTwoWorkers()); });
  file->addSeparator();
  file->addAction("&Quit", this, &QWidget::close)->setShortcut(QKeySequence::Quit);

  QMenu* run_menu = menuBar()->addMenu("&Run");
  run_ = run_menu->addAction("&Run locally", this, [this] { runProject(); });
  run_->setShortcut(Qt::Key_F5);
  run_->setToolTip("Start every task as its own process on 127.0.0.1 (F5)");
  stop_ = run_menu->addAction("&Stop", this, &MainWindow::stopRun);
  stop_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
  stop_->setToolTip("Stop the processes of this run (Shift+F5)");
  run_menu->addSeparator();
  run_menu->addAction("&Copy start commands", this, &MainWindow::copyStartCommands)
      ->setToolTip("The clab command line of every task, to run the cluster by hand");

  QMenu* view_menu = menuBar()->addMenu("&View");
  view_menu->addAction("&Fit cluster", this, &MainWindow::fitCluster)
      ->setShortcut(Qt::CTRL | Qt::Key_0);
  QMenu* help = menuBar()->addMenu("&Help");
  help->addAction("&About ClusterLab", this, &MainWindow::about);

  QToolBar* toolbar = addToolBar("Main");
  toolbar->setObjectName("main-toolbar");
  toolbar->addAction(open_action);
  toolbar->addAction(save_action);
  toolbar->addSeparator();
  toolbar->addAction(run_);
  toolbar->addAction(stop_);
  updateActions();
}

void MainWindow::setProject(const Project& project, const QString& path) {
  if (isRunning()) stopRun();
  project_ = project;
  path_ = path;
  scene_->setProject(project_);
  fitCluster();
  QStringList tasks;
  for (const ProjectTask& task : project_.tasks) tasks << task.name();
  dashboard_->setTasks(tasks);
  setWindowTitle(QStringLiteral("%1 - ClusterLab Studio").arg(path.isEmpty() ? project_.name : path));
  const QStringList problems = project_.validate();
  statusBar()->showMessage(problems.isEmpty() ? "Ready: press F5 to run the cluster on this machine"
                                              : "The cluster has problems: " + problems.join("; "));
  updateActions();
}

bool MainWindow::openProject(const QString& path, QString* error) {
  Project project;
  if (!Project::Load(path, &project, error)) return false;
  setProject(project, path);
  return true;
}

bool MainWindow::runProject(QString* error) {
  QString problem;
  console_->clear();
  placement_->setRows({});
  process_notes_.clear();
  scene_->resetStatuses();
  if (!cluster_->Start(project_, &problem)) {
    statusBar()->showMessage("Cannot run: " + problem);
    if (error) *error = problem;
    return false;
  }
  dashboard_->startRun();
  monitor_->Watch(cluster_->addresses());
  // Local runs use free ports: the cards show where each task really listens.
  for (auto it = cluster_->addresses().begin(); it != cluster_->addresses().end(); ++it)
    if (TaskItem* item = scene_->item(it.key())) item->setAddress(it.value() + "  (this run)");
  statusBar()->showMessage(QStringLiteral("Running %1 tasks on 127.0.0.1").arg(project_.tasks.size()));
  updateActions();
  return true;
}

void MainWindow::stopRun() {
  cluster_->Stop();
  statusBar()->showMessage("Stopping the run...");
}

bool MainWindow::isRunning() const { return cluster_ && cluster_->running(); }

void MainWindow::onStatusChanged(const QString& task) {
  const TaskStatus status = monitor_->statuses().value(task);
  QString text = PhaseText(status.phase);
  if (status.global_step >= 0) text += QStringLiteral(", step %1").arg(status.global_step);
  const QString note = process_notes_.value(task);
  scene_->setTaskStatus(task, note.contains("crash") || note.contains("exited 1") ? QColor(210, 40, 40)
                                                                                   : PhaseColor(status.phase, status.connected),
                        note.isEmpty() ? text : note);
  dashboard_->updateTask(task, status, note);
}

void MainWindow::onProgress() {
  for (auto it = monitor_->statuses().begin(); it != monitor_->statuses().end(); ++it) onStatusChanged(it.key());
  dashboard_->updateProgress(monitor_->globalStep(), monitor_->totalStepsPerSecond());
  status_step_->setText(QStringLiteral("global step %1  |  %2 steps/s")
                            .arg(monitor_->globalStep())
                            .arg(monitor_->totalStepsPerSecond(), 0, 'f', 0));
}

void MainWindow::onTaskFinished(const QString& task, int exit_code, bool crashed, const QString& last_lines) {
  QString note;
  if (crashed) {
    note = "crashed";
  } else if (exit_code != 0) {
    note = QStringLiteral("exited %1").arg(exit_code);
  }
  if (!note.isEmpty()) {
    process_notes_.insert(task, note);
    ConsoleLine line{task, static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0, 40, "process",
                     QStringLiteral("the process %1; its last output:\n%2").arg(note, last_lines)};
    console_->append({line});
  }
  onStatusChanged(task);
}

void MainWindow::onRunFinished(bool ok) {
  monitor_->StopWatching();
  for (const ProjectTask& task : project_.tasks) onStatusChanged(task.name());
  onProgress();
  statusBar()->showMessage(ok ? QStringLiteral("Run finished at global step %1").arg(monitor_->globalStep())
                              : "Run ended with a failed worker: see the Console");
  updateActions();
}

void MainWindow::updateActions() {
  const bool running = isRunning();
  if (run_) run_->setEnabled(!running);
  if (stop_) stop_->setEnabled(running);
}

void MainWindow::open() {
  const QString path = QFileDialog::getOpenFileName(this, "Open project", {}, "ClusterLab projects (*.clab)");
  if (path.isEmpty()) return;
  QString error;
  if (!openProject(path, &error)) QMessageBox::warning(this, "Cannot open the project", error);
}

void MainWindow::save() {
  if (path_.isEmpty()) return saveAs();
  QString error;
  if (!project_.Save(path_, &error)) QMessageBox::warning(this, "Cannot save the project", error);
  else statusBar()->showMessage("Saved " + path_, 3000);
}

void MainWindow::saveAs() {
  const QString path = QFileDialog::getSaveFileName(this, "Save project", path_, "ClusterLab projects (*.clab)");
  if (path.isEmpty()) return;
  path_ = path;
  save();
}

void MainWindow::copyStartCommands() {
  QStringList lines;
  for (const ProjectTask& task : project_.tasks) {
    const QString spec = project_.clusterSpec();
    lines << (task.job == "worker"
                  ? QStringLiteral("clab example seed --cluster '%1' --job_name worker --task_index %2").arg(spec).arg(task.index)
                  : QStringLiteral("clab server --cluster '%1' --job_name %2 --task_index %3")
                        .arg(spec, task.job)
                        .arg(task.index));
  }
  QApplication::clipboard()->setText(lines.join('\n'));
  statusBar()->showMessage(QStringLiteral("Copied %1 start commands").arg(lines.size()), 3000);
}

void MainWindow::about() {
  QMessageBox::about(this, "About ClusterLab Studio",
                     QStringLiteral("<b>ClusterLab Studio %1</b><br>Design a cluster of parameter servers and "
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
  if (isRunning()) {
    cluster_->Stop();
    // LocalCluster's destructor kills whatever is left when the window goes.
  }
  event->accept();
}

}  // namespace clab::ui
