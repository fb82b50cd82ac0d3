// An edge on the graph canvas: a curve from an output port to an input port, labelled (next
// to the output port) with the tensor's inferred shape; control dependencies are dashed and end at the node's title.
// An edge whose input lies left of its output goes round both nodes, never through them.
#pragma once

#include <QGraphicsPathItem>
#include <QPolygonF>

namespace clab::ui {

class NodeItem;

class EdgeItem : public QGraphicsPathItem {
 public:
  enum { Type = UserType + 42 };
  // `input` -1: a control dependency.
  EdgeItem(NodeItem* src, int output, NodeItem* dst, int input, QString label, QString tooltip);

  int type() const override { return Type; }
  NodeItem* source() const { return src_; }
  NodeItem* destination() const { return dst_; }
  int output() const { return output_; }
  int input() const { return input_; }
  bool isControl() const { return input_ < 0; }
  const QString& label() const { return label_; }

  void updatePath();
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  // The curve between two points, as edges and the connection being dragged draw it.
  static QPainterPath curve(const QPointF& from, const QPointF& to);
  // The way round two nodes (scene rects) when the input is not to the right of the output.
  static QPainterPath detour(const QPointF& from, const QPointF& to, const QRectF& source, const QRectF& target);

 private:
  QRectF labelRect() const;

  NodeItem* src_;
  int output_;
  NodeItem* dst_;
  int input_;
  QString label_;
  QPolygonF flat_;  // the path as line segments
};

}  // namespace clab::ui
