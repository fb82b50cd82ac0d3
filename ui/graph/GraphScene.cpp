#include "graph/GraphScene.h"

#include "graph/AttrText.h"
#include "graph/EdgeItem.h"
#include "graph/GraphDocument.h"
#include "graph/GraphLayout.h"
#include "graph/NodeItem.h"

#include <QGraphicsPathItem>
#include <QGraphicsSceneMouseEvent>
#include <QUndoStack>

#include <set>

namespace clab::ui {
namespace {

QString EdgeLabel(const NodePorts& ports, int output) {
  if (output < 0 || static_cast<size_t>(output) >= ports.output_shapes.size()) return "?";
  const PartialShape& shape = ports.output_shapes[static_cast<size_t>(output)];
  return shape.known_rank() ? AttrText::shapeText(shape) : QString("?");
}

}  // namespace

GraphScene::GraphScene(GraphDocument* document, QObject* parent) : QGraphicsScene(parent), document_(document) {
  setBackgroundBrush(QColor(250, 250, 250));
  connect(document_, &GraphDocument::changed, this, &GraphScene::rebuild);
  connect(this, &QGraphicsScene::selectionChanged, this, [this] {
    if (rebuilding_) return;
    const QStringList nodes = selectedNodes();
    emit nodeSelectionChanged(nodes.size() == 1 ? nodes.first() : QString());
  });
  rebuild();
}

GraphScene::~GraphScene() {
  // Items deleted by QGraphicsScene's destructor change the selection: nobody listens now.
  blockSignals(true);
}

QStringList GraphScene::selectedNodes() const {
  QStringList names;
  for (QGraphicsItem* item : selectedItems())
    if (item->type() == NodeItem::Type) names << static_cast<NodeItem*>(item)->name();
  return names;
}

void GraphScene::selectNode(const QString& node) {
  clearSelection();
  if (NodeItem* item = items_.value(node)) item->setSelected(true);
}

void GraphScene::setClusterTasks(const QStringList& tasks) {
  if (tasks == cluster_tasks_) return;
  cluster_tasks_ = tasks;
  recolor();
}

void GraphScene::setColorBy(ColorBy mode) {
  if (mode == color_by_) return;
  color_by_ = mode;
  recolor();
}

void GraphScene::setAssignedDevices(const QHash<QString, QString>& assigned) {
  assigned_ = assigned;
  recolor();
}

QString GraphScene::shownDevice(const QString& node) const {
  if (color_by_ == ColorBy::kAssignedDevice) return assigned_.value(node);
  const tensorflow::NodeDef* def = document_->node(node);
  return def ? QString::fromStdString(def->device()) : QString();
}

void GraphScene::recolor() { rebuild(); }

QRectF GraphScene::nodesRect() const {
  QRectF rect;
  for (NodeItem* item : items_) rect = rect.united(item->sceneBoundingRect());
  return rect;
}

void GraphScene::rebuild() {
  emit aboutToRebuild();  // items others drew on the canvas go now, before clear() takes them
  rebuilding_ = true;
  const QStringList selected = selectedNodes();
  drag_source_ = nullptr;
  drag_line_ = nullptr;
  clear();
  items_.clear();

  const tensorflow::GraphDef& graph = document_->graph();
  colors_.clear();
  for (const QString& task : cluster_tasks_) colors_.add(task);
  QList<NodeLook> looks;
  looks.reserve(graph.node_size());
  for (const auto& def : graph.node()) {
    NodeLook look;
    look.name = QString::fromStdString(def.name());
    look.op = QString::fromStdString(def.op());
    look.device = QString::fromStdString(def.device());
    look.assigned = assigned_.value(look.name);
    look.error = document_->error(look.name);
    look.ports = document_->ports(look.name);
    colors_.add(shownDevice(look.name));
    looks << look;
  }
  for (NodeLook& look : looks) look.fill = colors_.color(shownDevice(look.name));

  // Positions: a layout for a graph mostly new to the canvas, else new nodes to the right.
  int missing = 0;
  for (const NodeLook& look : looks) missing += positions_.contains(look.name) ? 0 : 1;
  if (missing > std::max<qsizetype>(2, looks.size() / 2)) {
    std::vector<QSizeF> sizes;
    for (const NodeLook& look : looks) sizes.push_back(NodeItem::sizeFor(look));
    std::vector<std::pair<int, int>> edges;
    for (int dst = 0; dst < graph.node_size(); ++dst)
      for (const std::string& input : graph.node(dst).input()) {
        QString src = QString::fromStdString(input);
        if (src.startsWith('^')) src = src.mid(1);
        const int colon = src.lastIndexOf(':');
        int index = document_->indexOf(src);
        if (index < 0 && colon > 0) index = document_->indexOf(src.left(colon));
        if (index >= 0) edges.emplace_back(index, dst);
      }
    const std::vector<QPointF> placed = GraphLayout::Layered(sizes, edges);
    for (int i = 0; i < looks.size(); ++i) positions_.insert(looks[i].name, placed[static_cast<size_t>(i)]);
  } else if (missing > 0) {
    QRectF known;
    for (const NodeLook& look : looks)
      if (positions_.contains(look.name)) known = known.united(QRectF(positions_.value(look.name), QSizeF(1, 1)));
    double y = known.isNull() ? 0 : known.top();
    for (const NodeLook& look : looks) {
      if (positions_.contains(look.name)) continue;
      positions_.insert(look.name, QPointF(known.isNull() ? 0 : known.right() + 260, y));
      y += NodeItem::sizeFor(look).height() + 30;
    }
  }

  for (const NodeLook& look : looks) {
    auto* item = new NodeItem(look);
    item->setPos(positions_.value(look.name));
    item->on_moved = [this](const QString& name, QPointF pos) { positions_.insert(name, pos); };
    addItem(item);
    items_.insert(look.name, item);
  }
  std::set<QString> labelled;
  for (const NodeLook& look : looks) {
    NodeItem* dst = items_.value(look.name);
    const auto inputs = document_->dataInputs(look.name);
    for (int slot = 0; slot < inputs.size(); ++slot) {
      NodeItem* src = items_.value(inputs[slot].first);
      if (src == nullptr || slot >= dst->inputCount() || inputs[slot].second >= src->outputCount()) continue;
      const int output = inputs[slot].second;
      const NodePorts& ports = src->look().ports;
      const DataType dtype = static_cast<size_t>(output) < ports.output_types.size() ? ports.output_types[static_cast<size_t>(output)] : DT_INVALID;
      const QString label = EdgeLabel(ports, output);
      // Edges from one output carry one tensor: its shape is written once, by the port.
      const bool first = labelled.insert(src->name() + ":" + QString::number(output)).second;
      addItem(new EdgeItem(src, output, dst, slot, first ? label : QString(),
                           QStringLiteral("%1:%2 -> %3 input %4\n%5 %6")
                               .arg(src->name())
                               .arg(output)
                               .arg(look.name)
                               .arg(slot)
                               .arg(dtype == DT_INVALID ? QString("?") : QString::fromStdString(DataTypeName(dtype)), label)));
    }
    for (const QString& source : document_->controlInputs(look.name))
      if (NodeItem* src = items_.value(source))
        addItem(new EdgeItem(src, -1, dst, -1, {}, QStringLiteral("%1 runs after %2").arg(look.name, source)));
  }
  for (const QString& name : selected)
    if (NodeItem* item = items_.value(name)) item->setSelected(true);
  setSceneRect(nodesRect().adjusted(-600, -400, 600, 400));
  rebuilding_ = false;
  emit rebuilt();
  const QStringList now = selectedNodes();
  emit nodeSelectionChanged(now.size() == 1 ? now.first() : QString());
}

void GraphScene::autoLayout() {
  positions_.clear();
  rebuild();
}

QString GraphScene::addNodeAt(const QString& op, const QPointF& pos, QString* error) {
  positions_.insert(document_->uniqueName(op), pos);
  const QString name = document_->addNode(op, {}, error);
  if (!name.isEmpty()) selectNode(name);
  return name;
}

void GraphScene::deleteSelection() {
  const QStringList nodes = selectedNodes();
  if (!nodes.isEmpty()) {
    document_->removeNodes(nodes);
    return;
  }
  struct Cut {
    QString dst, src;
    int input;
  };
  QList<Cut> cuts;
  for (QGraphicsItem* item : selectedItems())
    if (item->type() == EdgeItem::Type) {
      auto* edge = static_cast<EdgeItem*>(item);
      cuts.append({edge->destination()->name(), edge->source()->name(), edge->input()});
    }
  if (cuts.isEmpty()) return;
  document_->undoStack()->beginMacro(cuts.size() == 1 ? "Disconnect" : QStringLiteral("Disconnect %1 edges").arg(cuts.size()));
  for (const Cut& cut : cuts) {
    if (cut.input < 0) document_->disconnectControl(cut.dst, cut.src);
    else document_->disconnectInput(cut.dst, cut.input);
  }
  document_->undoStack()->endMacro();
}

NodeItem* GraphScene::nodeAt(const QPointF& pos, NodeItem* except) const {
  for (QGraphicsItem* item : items(pos))
    if (item->type() == NodeItem::Type && item != except) return static_cast<NodeItem*>(item);
  return nullptr;
}

void GraphScene::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    NodeItem* node = nodeAt(event->scenePos());
    const int output = node ? node->outputAt(event->scenePos()) : -1;
    if (output >= 0) {
      drag_source_ = node;
      drag_output_ = output;
      drag_line_ = addPath(EdgeItem::curve(node->outputPos(output), event->scenePos()),
                           QPen(QColor(20, 90, 200), 2, Qt::DashLine));
      drag_line_->setZValue(5);
      event->accept();
      return;
    }
  }
  QGraphicsScene::mousePressEvent(event);
}

void GraphScene::mouseMoveEvent(QGraphicsSceneMouseEvent* event) {
  if (drag_source_ != nullptr && drag_line_ != nullptr) {
    drag_line_->setPath(EdgeItem::curve(drag_source_->outputPos(drag_output_), event->scenePos()));
    event->accept();
    return;
  }
  QGraphicsScene::mouseMoveEvent(event);
}

void GraphScene::mouseReleaseEvent(QGraphicsSceneMouseEvent* event) {
  if (drag_source_ == nullptr) {
    QGraphicsScene::mouseReleaseEvent(event);
    return;
  }
  const QString src = drag_source_->name();
  const int output = drag_output_;
  delete drag_line_;
  drag_line_ = nullptr;
  drag_source_ = nullptr;
  event->accept();
  NodeItem* target = nodeAt(event->scenePos(), items_.value(src));
  if (target == nullptr) return;
  int slot = target->inputAt(event->scenePos());
  if (slot < 0) {
    // On the body: the first open input, else a control dependency.
    const auto inputs = document_->dataInputs(target->name());
    slot = -1;
    for (int i = 0; i < target->inputCount() && slot < 0; ++i)
      if (i >= inputs.size() || inputs[i].first.isEmpty()) slot = i;
  }
  QString error;
  const QString dst = target->name();
  if (!document_->connectNodes(src, output, dst, slot, &error)) emit message("Cannot connect: " + error);
  else if (slot < 0) emit message(QStringLiteral("%1 now runs after %2 (a control dependency)").arg(dst, src));
}

}  // namespace clab::ui
