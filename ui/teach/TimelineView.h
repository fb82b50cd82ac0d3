// A timeline of traced steps: one lane per device, one bar per node from its start to its
// end, computation in blue and transfers (_Send, _Recv, packing) in orange, steps one after
// another on a common clock, each bar carrying its node's name where it fits. The wheel zooms in time; a tooltip names
// the node, its op and how long it took. "Export Chrome trace..." writes the steps as Chrome trace JSON, which Perfetto
// and chrome://tracing open. Escape closes it.
#pragma once

#include "tensorflow/step_stats.pb.h"

#include <QList>
#include <QWidget>

class QGraphicsScene;
class QGraphicsView;
class QLabel;

namespace clab::ui {

class TimelineView : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineView(QList<tensorflow::StepStats> steps, QWidget* parent = nullptr);

  // The bars drawn: compute and transfer.
  int computeBars() const { return compute_bars_; }
  int transferBars() const { return transfer_bars_; }
  // Bars wide enough to carry their node's name (the others name it in their tooltip).
  int labelledBars() const { return labelled_bars_; }
  QStringList lanes() const { return lanes_; }
  // Horizontal pixels per microsecond.
  double scale() const { return scale_; }
  void zoom(double factor);
  // Every step as one Chrome trace ("traceEvents"); false with the reason.
  bool exportChromeTrace(const QString& path, QString* error = nullptr) const;
  // The steps merged into one StepStats (what the export writes).
  tensorflow::StepStats merged() const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void draw();

  QList<tensorflow::StepStats> steps_;
  QGraphicsScene* scene_;
  QGraphicsView* view_;
  QLabel* summary_;
  QStringList lanes_;
  double scale_ = 1.0;
  int compute_bars_ = 0;
  int transfer_bars_ = 0;
  int labelled_bars_ = 0;
};

}  // namespace clab::ui
