#include "window/GraphEditor.h"

#include "translations/Retranslate.h"

#include "graph/BuilderDialog.h"
#include "graph/DeviceFunctionDialog.h"
#include "graph/DevicePlacement.h"
#include "graph/GraphDocument.h"
#include "graph/GraphFiles.h"
#include "graph/GraphScene.h"
#include "graph/GraphView.h"
#include "graph/NodeItem.h"
#include "graph/NodePropertiesView.h"
#include "graph/OpPalette.h"
#include "graph/ProgramGraphs.h"
#include "monitor/RunMonitor.h"
#include "teach/TeachingPanel.h"
#include "teach/TeachingStage.h"
#include "window/ToolbarRows.h"

#include <QComboBox>
#include <QCompleter>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStringListModel>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace clab::ui {
namespace {

QString Q(const std::string& s) { return QString::fromStdString(s); }

DevicePlacement::Cluster ClusterOf(const Project& project) {
  DevicePlacement::Cluster cluster;
  for (const QString& job : project.jobs())
    for (const ProjectTask& task : project.tasksOf(job))
      cluster[job.toStdString()].push_back(task.address().toStdString());
  return cluster;
}

QIcon Swatch(const QColor& color) {
  QPixmap pixmap(14, 14);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.setPen(QColor(80, 80, 80));
  painter.setBrush(color);
  painter.drawRoundedRect(QRectF(0.5, 0.5, 13, 13), 3, 3);
  return QIcon(pixmap);
}

}  // namespace

GraphEditor::GraphEditor(QUndoStack* undo, QWidget* parent) : QWidget(parent) {
  document_ = new GraphDocument(undo, this);
  scene_ = new GraphScene(document_, this);
  view_ = new GraphView(scene_, this);
  palette_ = new OpPalette(this);
  properties_ = new NodePropertiesView(document_, this);
  legend_ = new QListWidget(this);
  legend_->setObjectName("legend");
  legend_->setSelectionMode(QAbstractItemView::NoSelection);
  problems_ = new QListWidget(this);
  problems_->setObjectName("problems");
  problems_->setWordWrap(true);
  problems_->setStyleSheet("QListWidget { color: #b00000; }");
  status_ = new QLabel(this);
  status_->setObjectName("graph-status");
  teaching_ = new TeachingPanel(document_, scene_, this);
  teaching_->hide();
  placement_stage_ = new TeachingStage(scene_, this);
  placement_stage_->setDimPruned(false);

  QList<QToolBar*> bars;
  for (const char* name : {"graph-toolbar", "graph-device-toolbar"}) {
    bars << new QToolBar(this);
    bars.last()->setObjectName(name);
    bars.last()->setToolButtonStyle(Qt::ToolButtonTextOnly);
  }
  buildToolbar(bars[0], bars[1]);

  auto* right = new QSplitter(Qt::Vertical, this);
  auto add_titled = [right](QWidget* widget) {
    auto* box = new QWidget(right);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    auto* label = new QLabel(box);
    layout->addWidget(label);
    layout->addWidget(widget, 1);
    right->addWidget(box);
    return label;
  };
  QLabel* node_title = add_titled(properties_);
  QLabel* devices_title = add_titled(legend_);
  QLabel* problems_title = add_titled(problems_);
  new Retranslate(this, [=, this] {
    legend_->setToolTip(tr("One colour per task; grey: no device"));
    node_title->setText("<b>" + tr("Node") + "</b>");
    devices_title->setText("<b>" + tr("Devices") + "</b>");
    problems_title->setText("<b>" + tr("Problems") + "</b>");
    updatePanels();
    if (status_text_) status_->setText(" " + status_text_());
  });
  right->setStretchFactor(0, 4);
  right->setStretchFactor(1, 2);
  right->setStretchFactor(2, 1);
  right->setSizes({420, 130, 90});  // the node's fields get the height

  right_ = right;
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(palette_);
  splitter->addWidget(view_);
  splitter->addWidget(right);
  splitter->addWidget(teaching_);
  splitter->setStretchFactor(0, 0);
  splitter->setStretchFactor(1, 1);
  splitter->setStretchFactor(2, 0);
  splitter->setStretchFactor(3, 0);
  splitter->setSizes({150, 820, 240, 360});

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(new ToolbarRows(bars, this));
  layout->addWidget(splitter, 1);
  layout->addWidget(status_);

  connect(palette_, &OpPalette::opActivated, this, [this](const QString& op) {
    QString error;
    const QPointF centre = view_->mapToScene(view_->viewport()->rect().center());
    if (scene_->addNodeAt(op, centre, &error).isEmpty()) setStatus(tr("Cannot add the node: %1").arg(error));
  });
  connect(scene_, &GraphScene::nodeSelectionChanged, properties_, &NodePropertiesView::showNode);
  connect(scene_, &GraphScene::message, this, qOverload<const QString&>(&GraphEditor::setStatus));
  connect(scene_, &GraphScene::rebuilt, this, &GraphEditor::updatePanels);
  connect(document_, &GraphDocument::changed, this, [this] {
    // A placement describes the graph it was made for: make it again.
    if (!scene_->assignedDevices().isEmpty() || scene_->colorBy() == GraphScene::ColorBy::kAssignedDevice) {
      QString error;
      if (!previewPlacement(&error)) {
        placement_stage_->setWalkthrough(nullptr);
        placement_plan_.reset();
        scene_->setAssignedDevices({});
        properties_->setAssignedDevices({});
      }
    }
  });
  connect(document_, &GraphDocument::edited, this, [this] {
    const QString text = graphText();
    source_key_ = "graph:" + text;
    emit graphEdited(text);
  });
  connect(teaching_, &TeachingPanel::phaseChanged, this,
          [this] { color_by_->setCurrentIndex(scene_->colorBy() == GraphScene::ColorBy::kAssignedDevice ? 1 : 0); });
  connect(teaching_, &TeachingPanel::ready, this, [this] { view_->fitAll(); });
  connect(problems_, &QListWidget::itemClicked, this,
          [this](QListWidgetItem* item) { view_->showNode(item->data(Qt::UserRole).toString()); });
  updatePanels();
}

GraphEditor::~GraphEditor() = default;

void GraphEditor::buildToolbar(QToolBar* toolbar, QToolBar* devices) {
  QAction* import = toolbar->addAction(QString(), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Import a graph"), {},
                                                      tr("GraphDef (*.pbtxt *.pb *.txt);;All files (*)"));
    QString error;
    if (!path.isEmpty() && !importGraph(path, &error)) QMessageBox::warning(this, tr("Cannot import the graph"), error);
  });
  import->setObjectName("import-graph");
  QAction* export_action = toolbar->addAction(QString(), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the graph"), "graph.pbtxt",
                                                      tr("Text GraphDef (*.pbtxt);;Binary GraphDef (*.pb)"));
    QString error;
    if (!path.isEmpty() && !exportGraph(path, &error)) QMessageBox::warning(this, tr("Cannot export the graph"), error);
  });
  export_action->setObjectName("export-graph");
  toolbar->addSeparator();
  QAction* layout = toolbar->addAction(QString(), this, [this] {
    scene_->autoLayout();
    view_->fitAll();
  });
  QAction* fit = toolbar->addAction(QString(), this, &GraphEditor::fitGraph);
  QAction* collapse = toolbar->addAction(QString(), this, [this] {
    scene_->collapseAll();
    scene_->autoLayout();
    view_->fitAll();
  });
  QAction* expand = toolbar->addAction(QString(), this, [this] {
    scene_->expandAll();
    scene_->autoLayout();
    view_->fitAll();
  });
  search_ = new QLineEdit(toolbar);
  search_->setObjectName("find-node");
  search_->setClearButtonEnabled(true);
  search_->setMinimumWidth(160);  // room for a node's name, whatever the tool bar's width
  search_->setMaximumWidth(200);
  auto* completer = new QCompleter(new QStringListModel(search_), search_);
  completer->setCaseSensitivity(Qt::CaseInsensitive);
  completer->setFilterMode(Qt::MatchContains);
  search_->setCompleter(completer);
  connect(search_, &QLineEdit::returnPressed, this, [this] {
    if (!findNode(search_->text())) setStatus(tr("No node named like '%1'").arg(search_->text()));
  });
  connect(completer, qOverload<const QString&>(&QCompleter::activated), this,
          [this](const QString& name) { findNode(name); });
  toolbar->addWidget(search_);
  auto* colour_by = new QLabel(devices);
  devices->addWidget(colour_by);
  color_by_ = new QComboBox(devices);
  color_by_->setObjectName("color-by");
  color_by_->addItems({QString(), QString()});
  connect(color_by_, &QComboBox::activated, this, [this](int index) {
    if (index == 1 && scene_->assignedDevices().isEmpty()) {
      QString error;
      if (!previewPlacement(&error)) {
        setStatus(tr("Cannot place the graph: %1").arg(error));
        color_by_->setCurrentIndex(0);
        return;
      }
    }
    scene_->setColorBy(index == 1 ? GraphScene::ColorBy::kAssignedDevice : GraphScene::ColorBy::kRequestedDevice);
    if (index == 0) {
      placement_stage_->setWalkthrough(nullptr);
      placement_plan_.reset();
    }
  });
  devices->addWidget(color_by_);
  devices->addSeparator();
  QAction* setter = devices->addAction(QString(), this, [this] {
    QStringList workers;
    for (const ProjectTask& task : project_.tasksOf("worker"))
      workers << QStringLiteral("/job:worker/task:%1").arg(task.index);
    DeviceFunctionDialog dialog(static_cast<int>(project_.tasksOf("ps").size()), workers, this);
    if (dialog.exec() != QDialog::Accepted) return;
    QString error;
    if (!applyReplicaDeviceSetter(dialog.choice(), &error))
      QMessageBox::warning(this, tr("Cannot apply the device function"), error);
  });
  setter->setObjectName("replica-device-setter");
  QAction* device_action = devices->addAction(QString(), this, [this] {
    const QStringList nodes = scene_->selectedNodes();
    if (nodes.isEmpty()) {
      setStatus(tr("Select the nodes to place first"));
      return;
    }
    QStringList choices{""};
    for (const ProjectTask& task : project_.tasks)
      choices << QStringLiteral("/job:%1/task:%2").arg(task.job).arg(task.index);
    bool ok = false;
    const QString device =
        QInputDialog::getItem(this, tr("Device of the selection"),
                              tr("Device for %1 node(s) (empty: none)").arg(nodes.size()), choices, 0, true, &ok);
    QString error;
    if (ok && !document_->setDevices(nodes, device, &error) && !error.isEmpty())
      QMessageBox::warning(this, tr("Cannot set the device"), error);
  });
  QAction* place = devices->addAction(QString(), this, [this] {
    QString error;
    if (!previewPlacement(&error)) QMessageBox::warning(this, tr("Cannot place the graph"), error);
  });
  devices->addSeparator();
  auto* build_menu = new QMenu(devices);
  const auto open_builder = [this](BuilderDialog::Kind kind) {
    const QStringList selected = scene_->selectedNodes();
    BuilderDialog dialog(kind, document_->nodeNames(), selected.size() == 1 ? selected.first() : QString(), this);
    while (dialog.exec() == QDialog::Accepted) {
      QString error;
      if (applyBuild(dialog.build(document_->graph()), &error)) return;
      QMessageBox::warning(this, dialog.windowTitle(), error);
    }
  };
  QAction* dense =
      build_menu->addAction(QString(), this, [open_builder] { open_builder(BuilderDialog::Kind::kDense); });
  QAction* loss = build_menu->addAction(QString(), this, [open_builder] { open_builder(BuilderDialog::Kind::kLoss); });
  QAction* optimizer =
      build_menu->addAction(QString(), this, [open_builder] { open_builder(BuilderDialog::Kind::kOptimizer); });
  QAction* global_step = build_menu->addAction(QString(), this, [this] {
    QString error;
    if (!applyBuild(GraphBuilders::addGlobalStep(document_->graph()), &error))
      QMessageBox::warning(this, tr("Cannot add the global step"), error);
  });
  auto* build_button = new QToolButton(devices);
  build_button->setObjectName("build-menu");
  build_button->setMenu(build_menu);
  build_button->setPopupMode(QToolButton::InstantPopup);
  devices->addWidget(build_button);
  devices->addSeparator();
  QAction* teach = devices->addAction(QString());
  teach->setObjectName("teach");
  teach->setCheckable(true);
  connect(teach, &QAction::toggled, this, &GraphEditor::setTeaching);
  new Retranslate(this, [=, this] {
    import->setText(tr("Import..."));
    export_action->setText(tr("Export..."));
    layout->setText(tr("Layout"));
    layout->setToolTip(tr("Lay the graph out again, inputs to the left"));
    fit->setText(tr("Fit"));
    fit->setToolTip(tr("Show the whole graph"));
    collapse->setText(tr("Collapse"));
    collapse->setToolTip(
        tr("Show each top-level name scope as one box (double-click a box, or right-click a node, to change one)"));
    expand->setText(tr("Expand"));
    expand->setToolTip(tr("Show every node of every name scope"));
    search_->setPlaceholderText(tr("Find node"));
    colour_by->setText(tr(" Colour by "));
    color_by_->setItemText(0, tr("requested device"));
    color_by_->setItemText(1, tr("placed device"));
    setter->setText("replica_device_setter...");
    setter->setToolTip(
        tr("Put variables on the ps tasks (round robin) and every other op on /job:worker/task:0, "
           "as tf.train.replica_device_setter does, then show where the Placer puts each node"));
    device_action->setText(tr("Device..."));
    device_action->setToolTip(tr("Set the requested device of every selected node at once"));
    place->setText(tr("Place"));
    place->setToolTip(tr("Run the engine's Placer on the project's tasks and colour nodes by where they land"));
    dense->setText(tr("Dense layer..."));
    loss->setText(tr("Loss..."));
    optimizer->setText(tr("Optimizer..."));
    global_step->setText(tr("Global step"));
    build_button->setText(tr("Build"));
    build_button->setToolTip(
        tr("Add a dense layer, a loss, an optimizer (gradients and apply ops) or the global step"));
    teach->setText(tr("Teach"));
    teach->setToolTip(tr("Walk through one distributed step of this graph: prune, place, partition, register, run"));
  });
}

void GraphEditor::setTeaching(bool on) {
  if (auto* action = findChild<QAction*>("teach")) {
    const QSignalBlocker quiet(action);
    action->setChecked(on);
  }
  if (on) {
    placement_stage_->setWalkthrough(nullptr);
    placement_plan_.reset();
  }
  teaching_->setVisible(on);
  // A class looks at the canvas and the explanations: the palette and the node's panels
  // make way while teaching.
  palette_->setVisible(!on);
  right_->setVisible(!on);
  if (!on) {
    teaching_->pause();
    teaching_->stage()->clear();
  }
}

QStringList GraphEditor::taskNames() const {
  QStringList tasks;
  for (const ProjectTask& task : project_.tasks) tasks << task.name();
  return tasks;
}

void GraphEditor::setProject(const Project& project) {
  project_ = project;
  scene_->setClusterTasks(taskNames());
  QStringList choices;
  for (const ProjectTask& task : project.tasks)
    choices << QStringLiteral("/job:%1/task:%2").arg(task.job).arg(task.index);
  properties_->setDeviceChoices(choices);

  const QString key =
      project.graph.isEmpty() ? "program:" + project.program + "@" + project.clusterSpec() : "graph:" + project.graph;
  if (key == source_key_) {
    teaching_->setProject(project, false);
    updatePanels();
    return;
  }
  source_key_ = key;
  placement_stage_->setWalkthrough(nullptr);
  placement_plan_.reset();
  scene_->setAssignedDevices({});
  properties_->setAssignedDevices({});
  scene_->setColorBy(GraphScene::ColorBy::kRequestedDevice);
  color_by_->setCurrentIndex(0);
  if (!project.graph.isEmpty()) {
    auto graph = GraphFiles::fromText(project.graph);
    document_->setGraph(graph.ok() ? *graph : tensorflow::GraphDef());
    const QString problem = graph.ok() ? QString() : Q(std::string(graph.status().message()));
    setStatus([this, problem] {
      return problem.isEmpty() ? tr("The project's graph: %1 nodes").arg(document_->nodeCount())
                               : tr("The project's graph cannot be read: %1").arg(problem);
    });
  } else {
    auto graph = ProgramGraphs::build(project.program, ClusterOf(project));
    document_->setGraph(graph.ok() ? *graph : tensorflow::GraphDef());
    const QString problem = graph.ok() ? QString() : Q(std::string(graph.status().message()));
    setStatus([this, problem, program = project.program] {
      return problem.isEmpty()
                 ? tr("The graph the %1 program builds on worker 0: %2 nodes").arg(program).arg(document_->nodeCount())
                 : problem;
    });
  }
  scene_->autoLayout();
  teaching_->setProject(project, true);
  fitted_ = false;
  if (isVisible()) QTimer::singleShot(0, this, [this] { fitGraph(); });
}

void GraphEditor::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (fitted_) return;
  // A graph loaded while the tab was hidden is fitted once the canvas has its size.
  fitGraph();
  QTimer::singleShot(0, this, [this] { fitGraph(); });
}

QString GraphEditor::graphText() const { return GraphFiles::toText(document_->graph()); }

bool GraphEditor::importGraph(const QString& path, QString* error) {
  auto graph = GraphFiles::read(path);
  if (!graph.ok()) {
    if (error) *error = Q(std::string(graph.status().message()));
    return false;
  }
  document_->replaceGraph(tr("Import %1").arg(QFileInfo(path).fileName()), *graph);
  scene_->autoLayout();
  fitGraph();
  setStatus(tr("Imported %1: %2 nodes").arg(path).arg(document_->nodeCount()));
  return true;
}

bool GraphEditor::exportGraph(const QString& path, QString* error) const {
  const Status written = GraphFiles::write(path, document_->graph());
  if (!written.ok() && error) *error = Q(std::string(written.message()));
  return written.ok();
}

bool GraphEditor::applyReplicaDeviceSetter(QString* error) { return applyReplicaDeviceSetter({}, error); }

bool GraphEditor::applyReplicaDeviceSetter(const SetterChoice& choice, QString* error) {
  const int ps = choice.ps_tasks > 0 ? choice.ps_tasks : static_cast<int>(project_.tasksOf("ps").size());
  if (ps == 0) {
    if (error) *error = tr("The cluster has no ps task: add one on the cluster canvas first.");
    return false;
  }
  auto placed = DevicePlacement::applyReplicaDeviceSetter(document_->graph(), ClusterOf(project_), choice);
  if (!placed.ok()) {
    if (error) *error = Q(std::string(placed.status().message()));
    return false;
  }
  document_->replaceGraph(tr("Apply replica_device_setter (%n ps task(s), %1)", nullptr, ps)
                              .arg(choice.greedy ? tr("greedy") : tr("round robin")),
                          *placed);
  QString place_error;
  if (previewPlacement(&place_error)) {
    scene_->setColorBy(GraphScene::ColorBy::kAssignedDevice);
    color_by_->setCurrentIndex(1);
    setStatus(
        tr("replica_device_setter over %n ps task(s); colours show where the Placer puts each node", nullptr, ps));
  } else {
    setStatus(tr("replica_device_setter applied; the graph cannot be placed yet: %1").arg(place_error));
  }
  return true;
}

bool GraphEditor::previewPlacement(QString* error) {
  QString default_device = "/job:worker/task:0";
  if (project_.tasksOf("worker").isEmpty() && !project_.tasks.isEmpty())
    default_device =
        QStringLiteral("/job:%1/task:%2").arg(project_.tasks.first().job).arg(project_.tasks.first().index);
  auto placed = DevicePlacement::place(document_->graph(), taskNames(), default_device);
  if (!placed.ok()) {
    if (error) *error = Q(std::string(placed.status().message()));
    return false;
  }
  scene_->setAssignedDevices(*placed);
  properties_->setAssignedDevices(*placed);
  showPlannedTransfers();
  return true;
}

bool GraphEditor::applyBuild(const StatusOr<BuildResult>& result, QString* error) {
  if (!result.ok()) {
    if (error) *error = Q(std::string(result.status().message()));
    setStatus(tr("Cannot build: %1").arg(Q(std::string(result.status().message()))));
    return false;
  }
  const int before = document_->nodeCount();
  document_->replaceGraph(result->description, result->graph);
  scene_->autoLayout();
  view_->showNode(result->output);
  setStatus(tr("%1: %2 new nodes, ends in %3")
                .arg(result->description)
                .arg(document_->nodeCount() - before)
                .arg(result->output));
  return true;
}

void GraphEditor::showPlannedTransfers() {
  placement_stage_->setWalkthrough(nullptr);
  placement_plan_.reset();
  if (teaching_->isVisible()) return;  // the teaching mode draws its own
  QMap<QString, QStringList> tasks;
  for (const ProjectTask& task : project_.tasks) tasks[task.job] << task.address();
  const QStringList fetches = StepWalkthrough::guessFetches(document_->graph());
  if (tasks.isEmpty() || fetches.isEmpty()) return;
  auto plan = StepWalkthrough::plan(document_->graph(), tasks, fetches, {});
  if (!plan.ok()) return;  // the graph's problems are listed already
  placement_plan_ = std::make_unique<StepWalkthrough>(std::move(*plan));
  placement_stage_->setWalkthrough(placement_plan_.get());
  placement_stage_->showPhase(TeachingPhase::kPartition);
  setStatus(tr("Placed on the project's tasks: a step of %1 sends %2 tensor(s) across tasks, %3 in all "
               "(dashed orange: _Send/_Recv pairs)")
                .arg(fetches.join(", "))
                .arg(placement_plan_->transfers.size())
                .arg(TeachingText::bytes(placement_plan_->transferBytes())));
}

void GraphEditor::showRunPlacement(const QList<PlacementRow>& rows) {
  if (rows.isEmpty()) return;
  QString first_task = rows.first().task;
  for (const PlacementRow& row : rows) first_task = std::min(first_task, row.task);
  QHash<QString, QString> assigned;
  for (const PlacementRow& row : rows)
    if (row.task == first_task && document_->node(row.node)) assigned.insert(row.node, row.device);
  if (assigned.isEmpty()) return;
  scene_->setAssignedDevices(assigned);
  properties_->setAssignedDevices(assigned);
  setStatus(tr("Placement of the running graph by %1").arg(first_task));
}

bool GraphEditor::findNode(const QString& text) {
  if (view_->showNode(text)) return true;
  for (const QString& name : document_->nodeNames())
    if (name.contains(text, Qt::CaseInsensitive)) return view_->showNode(name);
  return false;
}

void GraphEditor::fitGraph() {
  view_->fitAll();
  fitted_ = isVisible() && view_->viewport()->width() > 50;
}

QColor GraphEditor::nodeColor(const QString& node) const {
  NodeItem* item = scene_->item(node);
  return item ? item->look().fill : QColor();
}

QString GraphEditor::statusText() const { return status_->text(); }

void GraphEditor::setStatus(const QString& text) {
  status_text_ = nullptr;
  status_->setText(" " + text);
}

void GraphEditor::setStatus(std::function<QString()> text) {
  status_text_ = std::move(text);
  status_->setText(" " + status_text_());
}

void GraphEditor::updatePanels() {
  // Legend: each task with the number of nodes shown on it.
  QHash<QString, int> counts;
  int unplaced = 0;
  for (const QString& name : document_->nodeNames()) {
    const QString task = DeviceColors::taskOf(scene_->shownDevice(name));
    if (task.isEmpty()) ++unplaced;
    else ++counts[task];
  }
  legend_->clear();
  for (const QString& task : scene_->colors().tasks()) {
    auto* item = new QListWidgetItem(Swatch(scene_->colors().color(task)),
                                     QStringLiteral("%1  (%2)").arg(task).arg(counts.value(task)), legend_);
    item->setData(Qt::UserRole, task);
  }
  if (unplaced > 0) {
    auto* item =
        new QListWidgetItem(Swatch(DeviceColors::unplacedColor()), tr("no device  (%1)").arg(unplaced), legend_);
    item->setData(Qt::UserRole, QString());
  }
  problems_->clear();
  const GraphCheck& check = document_->check();
  for (const auto& node : document_->graph().node()) {
    const QString name = Q(node.name());
    if (!check.errors.contains(name)) continue;
    auto* item = new QListWidgetItem(name + ": " + check.errors.value(name), problems_);
    item->setData(Qt::UserRole, name);
  }
  if (!check.graph_error.isEmpty()) new QListWidgetItem(check.graph_error, problems_);
  if (problems_->count() == 0) {
    auto* item = new QListWidgetItem(tr("No problems: the engine accepts this graph."), problems_);
    item->setForeground(QColor(30, 120, 30));
  }
  if (auto* model = qobject_cast<QStringListModel*>(search_->completer()->model()))
    model->setStringList(document_->nodeNames());
}

}  // namespace clab::ui
