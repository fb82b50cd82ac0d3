// One node on the graph canvas: a box with the op type and the node's name, filled with its
// device's colour, typed input ports on the left and output ports on the right ("a: int32").
// A node at fault has a red border and its error message as tooltip.
#pragma once

#include "graph/GraphValidator.h"

#include <QColor>
#include <QGraphicsItem>
#include <QList>
#include <QPainterPath>

#include <functional>

namespace clab::ui {

class EdgeItem;

struct NodeLook {
  QString name;
  QString op;
  QString device;    // requested
  QString assigned;  // from a placement, when there is one
  QString error;
  QColor fill;
  NodePorts ports;
  // A collapsed name scope standing for this many nodes (name: "scope/"); 0 for a node.
  int members = 0;
};

class NodeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 41 };
  explicit NodeItem(NodeLook look);

  int type() const override { return Type; }
  const QString& name() const { return look_.name; }
  const NodeLook& look() const { return look_; }
  bool hasError() const { return !look_.error.isEmpty(); }
  bool isGroup() const { return look_.members > 0; }
  // The size a node of this look takes (what the layout plans with).
  static QSizeF sizeFor(const NodeLook& look);

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  // Port anchors in scene coordinates; control edges end at the left of the title.
  QPointF inputPos(int slot) const;
  QPointF outputPos(int slot) const;
  QPointF controlPos() const;
  // The port under `scene_pos`, or -1.
  int inputAt(const QPointF& scene_pos) const;
  int outputAt(const QPointF& scene_pos) const;
  int inputCount() const { return static_cast<int>(look_.ports.input_names.size()); }
  int outputCount() const { return static_cast<int>(look_.ports.output_names.size()); }

  void addEdge(EdgeItem* edge) { edges_ << edge; }
  // Called when the node is moved by the user.
  std::function<void(const QString&, QPointF)> on_moved;

 protected:
  QVariant itemChange(GraphicsItemChange change, const QVariant& value) override;

 private:
  QPointF localInput(int slot) const;
  QPointF localOutput(int slot) const;
  QString portLabel(bool output, int slot) const;

  NodeLook look_;
  QSizeF size_;
  QPainterPath title_band_;
  QString shown_name_;  // elided to the box
  QList<EdgeItem*> edges_;
};

}  // namespace clab::ui
