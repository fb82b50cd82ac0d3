// The studio's Graph tab: the compute graph of the project and where each op runs. The op
// palette on the left, the canvas in the middle, the selected node's properties, the device
// legend and the graph's problems on the right; a toolbar to import and export GraphDefs
// (.pbtxt, .pb), lay the graph out, find a node, colour nodes by requested or placed device,
// apply replica_device_setter for the project's cluster and preview the Placer's result,
// and the teaching mode's panel (ui/teach) beside the canvas.
//
// Graph edits go on the undo stack it is given (the window's), and each one hands the new
// graph to the project through graphEdited().
#pragma once

#include <functional>
#include <memory>

#include "graph/DevicePlacement.h"
#include "graph/GraphBuilders.h"
#include "project/Project.h"

#include <QHash>
#include <QList>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QToolBar;
class QUndoStack;

namespace clab::ui {

class GraphDocument;
class GraphScene;
class GraphView;
class NodePropertiesView;
class OpPalette;
struct PlacementRow;
class TeachingPanel;
class TeachingStage;
class StepWalkthrough;

class GraphEditor : public QWidget {
  Q_OBJECT

 public:
  explicit GraphEditor(QUndoStack* undo = nullptr, QWidget* parent = nullptr);
  ~GraphEditor() override;

  GraphDocument* document() const { return document_; }
  GraphScene* scene() const { return scene_; }
  GraphView* view() const { return view_; }
  OpPalette* palette() const { return palette_; }
  NodePropertiesView* properties() const { return properties_; }
  QListWidget* legend() const { return legend_; }
  QListWidget* problems() const { return problems_; }
  TeachingPanel* teaching() const { return teaching_; }
  // The placement preview's Send/Recv pairs (null before a placement).
  const StepWalkthrough* plannedTransfers() const { return placement_plan_.get(); }
  // Shows or hides the teaching mode's panel (hiding it restores the canvas).
  void setTeaching(bool on);

  // The cluster (colours, ps tasks, devices to place on) and the graph: the project's own,
  // or, when it has none, the graph its program builds. Reloads only what changed.
  void setProject(const Project& project);
  // The graph as the project stores it (protobuf text format).
  QString graphText() const;

  // Replaces the graph with a file's (one undo step); false with the reason.
  bool importGraph(const QString& path, QString* error = nullptr);
  bool exportGraph(const QString& path, QString* error = nullptr) const;
  // replica_device_setter over the whole graph, ps tasks from the project's cluster, round
  // robin (one undo step); then shows the Placer's placement.
  bool applyReplicaDeviceSetter(QString* error = nullptr);
  // The same with a choice of ps tasks, strategy and worker device.
  bool applyReplicaDeviceSetter(const SetterChoice& choice, QString* error = nullptr);
  // Runs the engine's Placer on the project's tasks and colours nodes by where they land.
  bool previewPlacement(QString* error = nullptr);
  // Where a run's master placed each node (worker 0's placement log).
  void showRunPlacement(const QList<clab::ui::PlacementRow>& rows);
  // Applies a builder's result (GraphBuilders) as one undo step and shows its output node;
  // false with the builder's error, and then nothing changes.
  bool applyBuild(const StatusOr<BuildResult>& result, QString* error = nullptr);
  // Selects and centres the node (exact name, else the first containing `text`).
  bool findNode(const QString& text);
  void fitGraph();
  // The colour a node is drawn with.
  QColor nodeColor(const QString& node) const;
  QString statusText() const;

 signals:
  void graphEdited(const QString& graph_text);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  // `toolbar`: files, layout and find; `devices`: colours, placement, builders and teaching.
  void buildToolbar(QToolBar* toolbar, QToolBar* devices);
  void updatePanels();
  void setStatus(const QString& text);
  // A status that follows the studio's language: `text` is asked again after a change.
  void setStatus(std::function<QString()> text);
  std::function<QString()> status_text_;
  // After a placement: the Send/Recv pairs a step of the graph would need, with their bytes.
  void showPlannedTransfers();
  QStringList taskNames() const;

  GraphDocument* document_;
  GraphScene* scene_;
  GraphView* view_;
  OpPalette* palette_;
  NodePropertiesView* properties_;
  QListWidget* legend_;
  QListWidget* problems_;
  TeachingPanel* teaching_;
  QWidget* right_;  // the node, devices and problems panels
  // The placement preview's _Send/_Recv pairs, drawn over the canvas.
  TeachingStage* placement_stage_;
  std::unique_ptr<StepWalkthrough> placement_plan_;
  QComboBox* color_by_ = nullptr;
  QLineEdit* search_ = nullptr;
  QLabel* status_;
  Project project_;
  QString source_key_;  // what the shown graph was loaded from
  bool fitted_ = false;
};

}  // namespace clab::ui
