#include "graph/GraphScene.h"

#include "graph/AttrText.h"
#include "graph/EdgeItem.h"
#include "graph/GraphDocument.h"
#include "graph/GraphLayout.h"
#include "graph/NodeItem.h"

#include <QGraphicsPathItem>
#include <QGraphicsSceneContextMenuEvent>
#include <QGraphicsSceneMouseEvent>
#include <QGraphicsView>
#include <QMenu>
#include <QSet>
#include <QUndoStack>

#include <set>
#include <tuple>

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
  // Views let go while this is still a GraphScene (letting go scrolls them, and a GraphView
  // asks its scene where the nodes are when it scrolls).
  for (QGraphicsView* view : views()) view->setScene(nullptr);
}

QStringList GraphScene::selectedNodes() const {
  QStringList names;
  for (QGraphicsItem* item : selectedItems()) {
    if (item->type() != NodeItem::Type) continue;
    const auto* node = static_cast<NodeItem*>(item);
    if (!node->isGroup()) {
      names << node->name();
      continue;
    }
    // A collapsed scope stands for its nodes.
    for (const QString& name : document_->nodeNames())
      if (collapsedScopeOf(name) == node->look().op) names << name;
  }
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
  // Every node is shown by itself or, inside a collapsed scope, by the scope's box
  // ("scope/"): its representative.
  QHash<QString, QString> shown_as;
  QList<NodeLook> looks;
  QHash<QString, int> look_index;
  looks.reserve(graph.node_size());
  for (const auto& def : graph.node()) {
    const QString name = QString::fromStdString(def.name());
    const QString group = collapsedScopeOf(name);
    const QString representative = group.isEmpty() ? name : group + "/";
    shown_as.insert(name, representative);
    colors_.add(shownDevice(name));
    if (look_index.contains(representative)) {
      NodeLook& box = looks[look_index.value(representative)];
      ++box.members;
      if (colors_.color(box.device) != colors_.color(shownDevice(name))) box.device.clear();  // tasks differ
      continue;
    }
    NodeLook look;
    look.name = representative;
    if (group.isEmpty()) {
      look.op = QString::fromStdString(def.op());
      look.device = QString::fromStdString(def.device());
      look.assigned = assigned_.value(name);
      look.error = document_->error(name);
      look.ports = document_->ports(name);
    } else {
      look.op = group;
      look.device = shownDevice(name);
      look.members = 1;
      look.ports.input_names = {""};
      look.ports.output_names = {""};
    }
    look_index.insert(representative, static_cast<int>(looks.size()));
    looks << look;
  }
  for (NodeLook& look : looks) {
    look.fill = look.members > 0 ? (look.device.isEmpty() ? DeviceColors::unplacedColor() : colors_.color(look.device))
                                 : colors_.color(shownDevice(look.name));
    if (look.members > 0 && !look.device.isEmpty()) look.assigned = look.device;
  }

  // Edges between representatives, once each (a scope's edges to one node become one).
  struct Link {
    QString src;
    int output;
    QString dst;
    int input;  // -1: control
  };
  QList<Link> links;
  std::set<std::tuple<QString, int, QString, int>> seen;
  for (const auto& def : graph.node()) {
    const QString dst_name = QString::fromStdString(def.name());
    const QString dst = shown_as.value(dst_name);
    const bool dst_group = dst != dst_name;
    const auto inputs = document_->dataInputs(dst_name);
    for (int slot = 0; slot < inputs.size(); ++slot) {
      if (inputs[slot].first.isEmpty() || !shown_as.contains(inputs[slot].first)) continue;
      const QString src = shown_as.value(inputs[slot].first);
      if (src == dst) continue;  // inside one collapsed scope
      const bool src_group = src != inputs[slot].first;
      const Link link{src, src_group ? 0 : inputs[slot].second, dst, dst_group ? 0 : slot};
      if (seen.insert({link.src, link.output, link.dst, link.input}).second) links << link;
    }
    for (const QString& source : document_->controlInputs(dst_name)) {
      if (!shown_as.contains(source)) continue;
      const QString src = shown_as.value(source);
      if (src == dst) continue;
      const Link link{src, -1, dst, -1};
      if (seen.insert({link.src, link.output, link.dst, link.input}).second) links << link;
    }
  }

  // Positions: a layout for a graph mostly new to the canvas, else new nodes to the right;
  // a scope's box, where it has none yet, where its nodes were.
  for (const NodeLook& look : looks) {
    if (look.members == 0 || positions_.contains(look.name)) continue;
    QPointF sum;
    int known = 0;
    for (auto it = shown_as.begin(); it != shown_as.end(); ++it)
      if (it.value() == look.name && positions_.contains(it.key())) {
        sum += positions_.value(it.key());
        ++known;
      }
    if (known > 0) positions_.insert(look.name, sum / known);
  }
  int missing = 0;
  for (const NodeLook& look : looks) missing += positions_.contains(look.name) ? 0 : 1;
  if (missing > std::max<qsizetype>(2, looks.size() / 2)) {
    std::vector<QSizeF> sizes;
    for (const NodeLook& look : looks) sizes.push_back(NodeItem::sizeFor(look));
    std::vector<std::pair<int, int>> edges;
    for (const Link& link : links) edges.emplace_back(look_index.value(link.src), look_index.value(link.dst));
    const std::vector<QPointF> placed = GraphLayout::layered(sizes, edges);
    for (int i = 0; i < looks.size(); ++i) positions_.insert(looks[i].name, placed[static_cast<size_t>(i)]);
  } else if (missing > 0) {
    // New nodes go to the right of the others, each in free space.
    std::vector<QRectF> taken;
    QRectF known;
    for (const NodeLook& look : looks)
      if (positions_.contains(look.name)) {
        taken.emplace_back(positions_.value(look.name), NodeItem::sizeFor(look));
        known = known.united(taken.back());
      }
    const QPointF start = known.isNull() ? QPointF(0, 0) : QPointF(known.right() + 60, known.top());
    for (const NodeLook& look : looks) {
      if (positions_.contains(look.name)) continue;
      const QSizeF size = NodeItem::sizeFor(look);
      const QPointF at = GraphLayout::freeSpot(taken, start, size);
      positions_.insert(look.name, at);
      taken.emplace_back(at, size);
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
  for (const Link& link : links) {
    NodeItem* src = items_.value(link.src);
    NodeItem* dst = items_.value(link.dst);
    if (link.input < 0) {
      addItem(new EdgeItem(src, -1, dst, -1, {}, QStringLiteral("%1 runs after %2").arg(link.dst, link.src)));
      continue;
    }
    if (link.input >= dst->inputCount() || link.output >= src->outputCount()) continue;
    const NodePorts& ports = src->look().ports;
    const DataType dtype = static_cast<size_t>(link.output) < ports.output_types.size()
                               ? ports.output_types[static_cast<size_t>(link.output)]
                               : DT_INVALID;
    const QString label = src->isGroup() ? QString() : EdgeLabel(ports, link.output);
    // Edges from one output carry one tensor: its shape is written once, by the port.
    const bool first = labelled.insert(link.src + ":" + QString::number(link.output)).second;
    addItem(new EdgeItem(
        src, link.output, dst, link.input, first ? label : QString(),
        QStringLiteral("%1:%2 -> %3 input %4\n%5 %6")
            .arg(link.src)
            .arg(link.output)
            .arg(link.dst)
            .arg(link.input)
            .arg(dtype == DT_INVALID ? QString("?") : QString::fromStdString(DataTypeName(dtype)), label)));
  }
  for (const QString& name : selected)
    if (NodeItem* item = items_.value(name)) item->setSelected(true);
  setSceneRect(nodesRect().adjusted(-600, -400, 600, 400));
  rebuilding_ = false;
  emit rebuilt();
  const QStringList now = selectedNodes();
  emit nodeSelectionChanged(now.size() == 1 ? now.first() : QString());
}

QString GraphScene::collapsedScopeOf(const QString& node) const {
  // The outermost collapsed scope holding the node.
  QString best;
  for (const QString& scope : collapsed_)
    if (node.startsWith(scope + "/") && (best.isEmpty() || scope.size() < best.size())) best = scope;
  return best;
}

QStringList GraphScene::scopes() const {
  QSet<QString> all;
  for (const QString& name : document_->nodeNames())
    for (int slash = name.indexOf('/'); slash > 0; slash = name.indexOf('/', slash + 1)) all.insert(name.left(slash));
  QStringList list(all.begin(), all.end());
  list.sort();
  return list;
}

void GraphScene::setCollapsed(const QString& scope, bool collapsed) {
  if (collapsed == collapsed_.contains(scope)) return;
  if (collapsed) collapsed_.insert(scope);
  else collapsed_.remove(scope);
  rebuild();
}

void GraphScene::collapseAll() {
  collapsed_.clear();
  for (const QString& scope : scopes())
    if (!scope.contains('/')) collapsed_.insert(scope);
  rebuild();
}

void GraphScene::expandAll() {
  if (collapsed_.isEmpty()) return;
  collapsed_.clear();
  rebuild();
}

bool GraphScene::reveal(const QString& node) {
  bool changed = false;
  for (QString scope = collapsedScopeOf(node); !scope.isEmpty(); scope = collapsedScopeOf(node)) {
    collapsed_.remove(scope);
    changed = true;
  }
  if (changed) rebuild();
  return changed;
}

void GraphScene::contextMenuEvent(QGraphicsSceneContextMenuEvent* event) {
  NodeItem* item = nodeAt(event->scenePos());
  if (!item) return;
  QMenu menu;
  if (item->isGroup()) {
    const QString scope = item->look().op;
    menu.addAction(QStringLiteral("Expand '%1'").arg(scope), this, [this, scope] { setCollapsed(scope, false); });
  } else {
    // Each scope the node is in, innermost first.
    const QString name = item->name();
    for (int slash = name.lastIndexOf('/'); slash > 0; slash = name.lastIndexOf('/', slash - 1)) {
      const QString scope = name.left(slash);
      menu.addAction(QStringLiteral("Collapse '%1'").arg(scope), this, [this, scope] { setCollapsed(scope, true); });
    }
  }
  if (menu.isEmpty()) return;
  menu.exec(event->screenPos());
}

void GraphScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
  if (NodeItem* item = nodeAt(event->scenePos()); item && item->isGroup()) {
    setCollapsed(item->look().op, false);
    return;
  }
  QGraphicsScene::mouseDoubleClickEvent(event);
}

void GraphScene::autoLayout() {
  positions_.clear();
  rebuild();
}

QString GraphScene::addNodeAt(const QString& op, const QPointF& pos, QString* error) {
  positions_.insert(document_->uniqueName(op), pos);
  const QString name = document_->addNode(op, {}, error);
  if (name.isEmpty()) return name;
  // Where it was asked for, or the nearest place there where it covers no other node (its
  // size is known once it is made).
  if (NodeItem* item = items_.value(name)) {
    std::vector<QRectF> taken;
    for (NodeItem* other : std::as_const(items_))
      if (other != item) taken.emplace_back(other->pos(), NodeItem::sizeFor(other->look()));
    item->setPos(GraphLayout::freeSpot(taken, pos, NodeItem::sizeFor(item->look())));
  }
  selectNode(name);
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
  document_->undoStack()->beginMacro(cuts.size() == 1 ? "Disconnect"
                                                      : QStringLiteral("Disconnect %1 edges").arg(cuts.size()));
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
  if (!document_->connectNodes(src, output, dst, slot, &error)) emit message(tr("Cannot connect: %1").arg(error));
  else if (slot < 0) emit message(QStringLiteral("%1 now runs after %2 (a control dependency)").arg(dst, src));
}

}  // namespace clab::ui
