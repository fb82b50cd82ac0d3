#include "teach/TeachingStage.h"

#include "graph/EdgeItem.h"
#include "graph/GraphLayout.h"
#include "graph/GraphScene.h"
#include "graph/NodeItem.h"

#include <QBrush>
#include <QGraphicsEllipseItem>
#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QHash>
#include <QPen>
#include <QSet>
#include <QVariantAnimation>

namespace clab::ui {
namespace {

const QColor kTransferColor(230, 120, 0);
const QColor kLocalTokenColor(30, 110, 220);
constexpr qreal kOverlayZ = 50;

}  // namespace

TeachingStage::TeachingStage(GraphScene* scene, QObject* parent) : QObject(parent), scene_(scene) {
  // The canvas makes new items after each edit or recolouring: draw again on the new ones.
  connect(scene_, &GraphScene::aboutToRebuild, this, [this] {
    dropOverlays();
    dropTokens();
  });
  connect(scene_, &GraphScene::rebuilt, this, [this] {
    if (walk_ && !redrawing_) redraw();
  });
}

TeachingStage::~TeachingStage() {
  walk_ = nullptr;  // its owner may be gone already
  if (scene_) clear();
}

void TeachingStage::setWalkthrough(const StepWalkthrough* walk) {
  clear();
  walk_ = walk;
}

void TeachingStage::clear() {
  if (!scene_) return;
  dropOverlays();
  dropTokens();
  lit_node_.clear();
  if (walk_) dimPruned(false);
}

void TeachingStage::dropTokens() {
  for (const Token& token : tokens_) {
    delete token.animation;
    scene_->removeItem(token.dot);
    delete token.dot;
  }
  tokens_.clear();
}

void TeachingStage::dropOverlays() {
  for (QGraphicsItem* item : overlays_) {
    scene_->removeItem(item);
    delete item;
  }
  overlays_.clear();
  transfer_edges_ = 0;
}

void TeachingStage::dimPruned(bool dim) {
  if (!walk_) return;
  const QSet<QString> pruned(walk_->pruned.begin(), walk_->pruned.end());
  for (const QString& name : walk_->kept + walk_->pruned)
    if (NodeItem* item = scene_->item(name)) item->setOpacity(dim && pruned.contains(name) ? 0.22 : 1.0);
}

void TeachingStage::showPhase(TeachingPhase phase) {
  phase_ = phase;
  lit_node_.clear();
  redraw();
}

void TeachingStage::redraw() {
  if (!walk_) return;
  redrawing_ = true;
  dropOverlays();
  if (phase_ >= TeachingPhase::kPlace) {
    if (scene_->assignedDevices() != walk_->assigned) scene_->setAssignedDevices(walk_->assigned);
    if (scene_->colorBy() != GraphScene::ColorBy::kAssignedDevice)
      scene_->setColorBy(GraphScene::ColorBy::kAssignedDevice);
  }
  dimPruned(dim_pruned_);
  if (phase_ >= TeachingPhase::kPartition) drawTransfers();
  if (phase_ == TeachingPhase::kRegister) drawPartitions();
  if (!lit_node_.isEmpty())
    if (NodeItem* item = scene_->item(lit_node_)) {
      auto* halo = new QGraphicsRectItem(item->sceneBoundingRect().adjusted(-6, -6, 6, 6));
      halo->setPen(QPen(QColor(255, 200, 0), 4));
      halo->setBrush(QColor(255, 230, 120, 90));
      halo->setZValue(kOverlayZ - 1);
      scene_->addItem(halo);
      overlays_ << halo;
    }
  redrawing_ = false;
}

void TeachingStage::drawTransfers() {
  for (const WalkTransfer& t : walk_->transfers) {
    bool labelled = false;
    for (const auto& [src, dst] : t.edges) {
      NodeItem* from = scene_->item(src);
      NodeItem* to = scene_->item(dst);
      if (!from || !to) continue;
      auto* path = new QGraphicsPathItem(EdgeItem::curve(from->outputPos(0), to->inputPos(0)));
      QPen pen(kTransferColor, 2.5, Qt::DashLine);
      path->setPen(pen);
      path->setZValue(kOverlayZ);
      path->setToolTip(
          QStringLiteral("_Send %1 → _Recv %2\n%3").arg(t.send_node, t.recv_node, TeachingText::bytes(t.bytes)));
      scene_->addItem(path);
      overlays_ << path;
      ++transfer_edges_;
      if (labelled) continue;
      labelled = true;
      const QString text = QStringLiteral("_Send/_Recv %1").arg(TeachingText::bytes(t.bytes));
      auto* label = new QGraphicsSimpleTextItem(text);
      label->setBrush(kTransferColor.darker(130));
      QFont font = label->font();
      font.setBold(true);
      label->setFont(font);
      auto* backdrop = new QGraphicsRectItem(label->boundingRect().adjusted(-3, -1, 3, 1));
      backdrop->setBrush(QColor(255, 250, 240, 230));
      backdrop->setPen(QPen(kTransferColor, 1));
      backdrop->setPos(labelPlace(path->path(), backdrop->rect()));
      backdrop->setZValue(kOverlayZ + 1);
      label->setParentItem(backdrop);
      scene_->addItem(backdrop);
      overlays_ << backdrop;
    }
  }
}

QPointF TeachingStage::labelPlace(const QPainterPath& path, const QRectF& box) const {
  // Along the pair's curve, above or below it, the first place that covers no node (and so
  // none of its ports); else the free place nearest the curve's middle.
  auto covers_node = [this](const QRectF& rect) {
    for (QGraphicsItem* item : scene_->items(rect, Qt::IntersectsItemBoundingRect))
      if (item->type() == NodeItem::Type) return true;
    return false;
  };
  for (const double at : {0.5, 0.35, 0.65, 0.2, 0.8})
    for (const double lift : {-box.height() - 4, 4.0}) {
      const QPointF place = path.pointAtPercent(at) + QPointF(-box.width() / 2, lift) - box.topLeft();
      if (!covers_node(box.translated(place))) return place;
    }
  std::vector<QRectF> nodes;
  for (QGraphicsItem* item : scene_->items())
    if (item->type() == NodeItem::Type) nodes.push_back(item->sceneBoundingRect());
  const QPointF wanted = path.pointAtPercent(0.5) - QPointF(box.width() / 2, box.height() + 4);
  return GraphLayout::freeSpot(nodes, wanted, box.size(), 2) - box.topLeft();
}

void TeachingStage::drawPartitions() {
  // The task of each node on the canvas ("" for nodes the step does not run).
  QHash<QString, QString> task_of;
  for (const QString& node : walk_->kept) task_of.insert(node, StepWalkthrough::taskOf(walk_->assigned.value(node)));
  constexpr qreal kPad = 10;  // around a partition's own nodes
  constexpr qreal kKeep = 4;  // the outline stays this far from any other node
  for (const WalkPartition& partition : walk_->partitions) {
    // The outline follows the partition's own nodes, so that it encloses them and nothing
    // else, however the layout mixes the tasks' nodes.
    QPainterPath shape;
    QRectF box;
    for (const QString& node : walk_->kept) {
      if (task_of.value(node) != partition.task) continue;
      if (NodeItem* item = scene_->item(node)) {
        const QRectF r = item->sceneBoundingRect();
        QPainterPath around;
        around.addRoundedRect(r.adjusted(-kPad, -kPad, kPad, kPad), 8, 8);
        shape = shape.united(around);
        box = box.united(r);
      }
    }
    if (shape.isEmpty()) continue;
    QPainterPath others;
    for (QGraphicsItem* item : scene_->items(shape.boundingRect(), Qt::IntersectsItemBoundingRect)) {
      if (item->type() != NodeItem::Type) continue;
      if (task_of.value(static_cast<NodeItem*>(item)->name()) == partition.task) continue;
      others.addRect(item->sceneBoundingRect().adjusted(-kKeep, -kKeep, kKeep, kKeep));
    }
    if (!others.isEmpty()) shape = shape.subtracted(others);
    const QColor color = scene_->colors().color(partition.task);
    auto* outline = new QGraphicsPathItem(shape);
    outline->setPen(QPen(color.darker(150), 2, Qt::DotLine));
    outline->setBrush(QColor(color.red(), color.green(), color.blue(), 28));
    outline->setZValue(kOverlayZ - 2);
    outline->setData(0, QStringLiteral("partition"));
    outline->setData(1, partition.task);
    auto* label = new QGraphicsSimpleTextItem(
        QStringLiteral("%1 · %2").arg(TeachingText::shortTask(partition.task)).arg(partition.nodes.size()), outline);
    label->setBrush(color.darker(170));
    label->setPos(box.topLeft() + QPointF(-kPad, -kPad - label->boundingRect().height() - 2));
    scene_->addItem(outline);
    overlays_ << outline;
  }
}

void TeachingStage::showExecution(int index, int token_ms) {
  if (!walk_) return;
  const QList<WalkExecution> run = walk_->executionsOf();
  if (index < 0 || index >= run.size()) return;
  const WalkExecution& e = run[index];
  lit_node_ = scene_->item(e.node) ? e.node : QString();
  redraw();
  if (e.op == "_Recv") {
    for (const WalkTransfer& t : walk_->transfers) {
      if (t.recv_node != e.node) continue;
      for (const auto& [src, dst] : t.edges) {
        NodeItem* from = scene_->item(src);
        NodeItem* to = scene_->item(dst);
        if (from && to) sendToken(from->outputPos(0), to->inputPos(0), kTransferColor, token_ms);
      }
    }
    return;
  }
  NodeItem* item = scene_->item(e.node);
  if (!item) return;
  // Its outputs go on to the nodes of the same task that read them.
  const QString task = StepWalkthrough::taskOf(e.device);
  for (QGraphicsItem* child : scene_->items()) {
    if (child->type() != EdgeItem::Type) continue;
    auto* edge = static_cast<EdgeItem*>(child);
    if (edge->source() != item || edge->isControl()) continue;
    const QString dst = edge->destination()->name();
    if (!walk_->assigned.contains(dst) || StepWalkthrough::taskOf(walk_->assigned.value(dst)) != task) continue;
    sendToken(item->outputPos(edge->output()), edge->destination()->inputPos(edge->input()), kLocalTokenColor,
              token_ms);
  }
}

void TeachingStage::sendToken(const QPointF& from, const QPointF& to, const QColor& color, int ms) {
  auto* dot = new QGraphicsEllipseItem(-6, -6, 12, 12);
  dot->setBrush(color);
  dot->setPen(QPen(color.darker(160), 1.5));
  dot->setZValue(kOverlayZ + 5);
  dot->setPos(from);
  scene_->addItem(dot);
  const QPainterPath path = EdgeItem::curve(from, to);
  auto* animation = new QVariantAnimation(this);
  animation->setStartValue(0.0);
  animation->setEndValue(1.0);
  animation->setDuration(std::max(ms, 1));
  connect(animation, &QVariantAnimation::valueChanged, animation,
          [dot, path](const QVariant& value) { dot->setPos(path.pointAtPercent(value.toDouble())); });
  connect(animation, &QVariantAnimation::finished, this, [this, animation, dot] {
    scene_->removeItem(dot);
    delete dot;
    tokens_.removeIf([animation](const Token& token) { return token.animation == animation; });
    animation->deleteLater();
  });
  tokens_ << Token{animation, dot};
  animation->start();
}

}  // namespace clab::ui
