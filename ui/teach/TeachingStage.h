// What the teaching mode draws on the graph canvas: pruned nodes greyed out, nodes coloured
// by their placed task, the _Send/_Recv pairs as dashed edges across tasks with their bytes,
// a box per task's partition, and during the run the node that executes lit up and tokens
// travelling along edges (orange across tasks). Holds node names only: the canvas rebuilds
// its items after an edit, and the stage draws itself again.
#pragma once

#include "teach/StepWalkthrough.h"
#include "teach/TeachingText.h"

#include <QList>
#include <QObject>
#include <QPainterPath>
#include <QPointer>

class QGraphicsItem;
class QVariantAnimation;

namespace clab::ui {

class GraphScene;

class TeachingStage : public QObject {
  Q_OBJECT

 public:
  explicit TeachingStage(GraphScene* scene, QObject* parent = nullptr);
  ~TeachingStage() override;

  void setWalkthrough(const StepWalkthrough* walk);
  // Grey out the nodes the step does not run (the teaching mode does; a placement preview,
  // which shows the whole graph, does not).
  void setDimPruned(bool dim) { dim_pruned_ = dim; }
  // Draws what the phase shows (and forgets the run's highlights).
  void showPhase(TeachingPhase phase);
  TeachingPhase phase() const { return phase_; }
  // Run phase: lights up execution `index` of the last traced step and sends its tokens;
  // each token takes `token_ms`.
  void showExecution(int index, int token_ms);
  // Removes everything the stage drew and restores the canvas.
  void clear();

  // For tests and the panel: tokens in flight, transfer edges drawn, the lit node.
  int tokensInFlight() const { return static_cast<int>(tokens_.size()); }
  int transferEdgesShown() const { return transfer_edges_; }
  QString litNode() const { return lit_node_; }

 private:
  void redraw();
  void dropOverlays();
  void dropTokens();
  void dimPruned(bool dim);
  void drawTransfers();
  // Where a transfer label on `path` covers no node: the backdrop rect `box` goes at the result.
  QPointF labelPlace(const QPainterPath& path, const QRectF& box) const;
  void drawPartitions();
  void sendToken(const QPointF& from, const QPointF& to, const QColor& color, int ms);

  QPointer<GraphScene> scene_;  // the canvas may go first when the editor closes
  const StepWalkthrough* walk_ = nullptr;
  TeachingPhase phase_ = TeachingPhase::kPrune;
  QList<QGraphicsItem*> overlays_;
  struct Token {
    QVariantAnimation* animation;
    QGraphicsItem* dot;
  };
  QList<Token> tokens_;
  QString lit_node_;
  int transfer_edges_ = 0;
  bool redrawing_ = false;
  bool dim_pruned_ = true;
};

}  // namespace clab::ui
