// The graph canvas: a NodeItem per node and an EdgeItem per input, rebuilt from the
// GraphDocument after each change (positions are kept by node name). Dragging from an
// output port to an input port connects them; dropping on a node's body feeds its first
// open input (or, when it has none, makes it wait for the source: a control dependency).
// Nodes are coloured by the task of their requested device, or of their assigned device
// once a placement is known.
#pragma once

#include "graph/DeviceColors.h"

#include <QGraphicsScene>
#include <QHash>
#include <QPointF>
#include <QSet>

class QGraphicsPathItem;

namespace clab::ui {

class GraphDocument;
class NodeItem;

class GraphScene : public QGraphicsScene {
  Q_OBJECT

 public:
  enum class ColorBy { kRequestedDevice, kAssignedDevice };

  explicit GraphScene(GraphDocument* document, QObject* parent = nullptr);
  ~GraphScene() override;

  GraphDocument* document() const { return document_; }
  NodeItem* item(const QString& node) const { return items_.value(node); }
  QStringList selectedNodes() const;
  // Selects only `node` (nothing for an unknown name).
  void selectNode(const QString& node);

  // The project's tasks come first in the colour order ("/job:ps/replica:0/task:0"...).
  void setClusterTasks(const QStringList& tasks);
  void setColorBy(ColorBy mode);
  ColorBy colorBy() const { return color_by_; }
  // Node -> assigned device, from the Placer or a run's placement log; empty to forget.
  void setAssignedDevices(const QHash<QString, QString>& assigned);
  const QHash<QString, QString>& assignedDevices() const { return assigned_; }
  // The device a node is coloured by in the current mode.
  QString shownDevice(const QString& node) const;
  const DeviceColors& colors() const { return colors_; }

  // Name scopes ("hidden1", "hidden1/weights"...), each shown as one box when collapsed, with
  // the edges to and from its nodes; double-clicking the box expands it.
  QStringList scopes() const;
  void setCollapsed(const QString& scope, bool collapsed);
  bool isCollapsed(const QString& scope) const { return collapsed_.contains(scope); }
  // Collapses every top-level scope / expands every scope.
  void collapseAll();
  void expandAll();
  // Expands the scopes hiding `node`; true when something opened.
  bool reveal(const QString& node);
  // The outermost collapsed scope that holds `node`, or "".
  QString collapsedScopeOf(const QString& node) const;

  // Lays out every node again (layered, left to right).
  void autoLayout();
  QPointF position(const QString& node) const { return positions_.value(node); }
  // Adds a node of `op` with its top-left corner at `pos`; its name, or "" with `error`.
  QString addNodeAt(const QString& op, const QPointF& pos, QString* error = nullptr);
  // Removes the selected nodes and disconnects the selected edges (one undo step each).
  void deleteSelection();
  // The bounding rectangle of the nodes (not the scene rect, which keeps a margin).
  QRectF nodesRect() const;

 signals:
  void nodeSelectionChanged(const QString& node);  // "" when none or several
  void message(const QString& text);
  // Every item is about to be deleted and made again; rebuilt() follows.
  void aboutToRebuild();
  void rebuilt();

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseMoveEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;
  void contextMenuEvent(QGraphicsSceneContextMenuEvent* event) override;

 private:
  void rebuild();
  void recolor();
  NodeItem* nodeAt(const QPointF& pos, NodeItem* except = nullptr) const;

  GraphDocument* document_;
  QHash<QString, NodeItem*> items_;
  QHash<QString, QPointF> positions_;
  QHash<QString, QString> assigned_;
  QStringList cluster_tasks_;
  QSet<QString> collapsed_;
  DeviceColors colors_;
  ColorBy color_by_ = ColorBy::kRequestedDevice;
  bool layout_next_ = true;
  bool rebuilding_ = false;
  // The connection being dragged.
  NodeItem* drag_source_ = nullptr;
  int drag_output_ = -1;
  QGraphicsPathItem* drag_line_ = nullptr;
};

}  // namespace clab::ui
