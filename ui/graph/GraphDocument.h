// The graph being edited: a tensorflow::GraphDef with the edits the graph editor (and tests)
// make, each one undoable step on a QUndoStack (the window's, so graph and cluster edits
// share one history). After every change the graph is checked again (GraphValidator): the
// document knows each node's error message, ports and output shapes.
//
//   GraphDocument doc;
//   const QString a = doc.addNode("Const");          // "Const", then "Const_1", ...
//   doc.connectNodes(a, 0, "MatMul", 0);              // a:0 -> MatMul's input 0
//   doc.undoStack()->undo();
#pragma once

#include "graph/GraphValidator.h"

#include "tensorflow/graph.pb.h"

#include <QHash>
#include <QObject>
#include <QStringList>

class QUndoStack;

namespace clab::ui {

class GraphDocument : public QObject {
  Q_OBJECT

 public:
  // Without `undo` the document keeps a stack of its own.
  explicit GraphDocument(QUndoStack* undo = nullptr, QObject* parent = nullptr);

  const tensorflow::GraphDef& graph() const { return graph_; }
  QUndoStack* undoStack() const { return undo_; }
  // Replaces the graph without an undo step (opening a project).
  void setGraph(const tensorflow::GraphDef& graph);

  int nodeCount() const { return graph_.node_size(); }
  const tensorflow::NodeDef* node(const QString& name) const;
  int indexOf(const QString& name) const { return index_.value(name, -1); }
  QStringList nodeNames() const;
  // `base` when no node has that name, else base_1, base_2, ... as TensorFlow names them.
  QString uniqueName(const QString& base) const;

  const GraphCheck& check() const { return check_; }
  QString error(const QString& node) const { return check_.errors.value(node); }
  // Ports of a node (empty for a name not in the graph).
  NodePorts ports(const QString& node) const { return check_.ports.value(node); }
  // The data inputs of `node`, by slot: {source node, output} or {"", 0} for an open slot.
  QList<QPair<QString, int>> dataInputs(const QString& node) const;
  QStringList controlInputs(const QString& node) const;

  // Edits. Each is one undo step; false (or an empty name) with `error` when refused, and
  // then nothing changes.
  // A node of a registered op, its attrs at their defaults (attrs without one get a
  // placeholder: float, 0, an empty string...). Returns the new node's name.
  QString addNode(const QString& op, const QString& name = {}, QString* error = nullptr);
  bool removeNodes(const QStringList& names);
  // src:output feeds input slot `input` of dst; input -1 adds a control dependency. When
  // the input's type comes from a type attr (T), that attr takes the source's type.
  bool connectNodes(const QString& src, int output, const QString& dst, int input, QString* error = nullptr);
  bool disconnectInput(const QString& dst, int input);
  bool disconnectControl(const QString& dst, const QString& src);
  bool setAttr(const QString& node, const QString& attr, const tensorflow::AttrValue& value, QString* error = nullptr);
  bool removeAttr(const QString& node, const QString& attr);
  // A device spec ("/job:ps/task:0", "/cpu:0", "" for none), checked by the engine's parser.
  bool setDevice(const QString& node, const QString& device, QString* error = nullptr);
  // The same device for several nodes, as one step (false when none changes).
  bool setDevices(const QStringList& nodes, const QString& device, QString* error = nullptr);
  // Renames the node and every input and colocation ("loc:@name") naming it.
  bool renameNode(const QString& node, const QString& new_name, QString* error = nullptr);
  // Any other change of the whole graph (an import, a device function) as one step.
  void replaceGraph(const QString& text, const tensorflow::GraphDef& after);

 signals:
  // After every change of the graph: edits, undo, redo and setGraph.
  void changed();
  // After edits, undo and redo (not setGraph): what the project should save.
  void edited();

 private:
  friend class GraphEditCommand;
  void restore(const tensorflow::GraphDef& graph);
  void load(const tensorflow::GraphDef& graph);
  bool push(const QString& text, const tensorflow::GraphDef& after);
  tensorflow::NodeDef* mutableNode(tensorflow::GraphDef* graph, const QString& name) const;

  QUndoStack* undo_;
  tensorflow::GraphDef graph_;
  QHash<QString, int> index_;
  GraphCheck check_;
};

}  // namespace clab::ui
