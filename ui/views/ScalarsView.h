// The run's scalars as TensorBoard shows them: the loss, and the accuracy where the program
// measures one (the training minibatch's, logged with the loss, and the held-out rows' at the
// end of training), one curve per run of this session overlaid. Beside the charts: the
// smoothing slider, the loss's log scale, and the runs, each with a box to hide it and a
// button to clear the earlier ones. Hidden until a run reports a scalar.
#pragma once

#include <QColor>
#include <QWidget>

class QCheckBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSlider;

namespace clab::ui {

class ScalarChart;

class ScalarsView : public QWidget {
  Q_OBJECT

 public:
  explicit ScalarsView(QWidget* parent = nullptr);

  // A new run: what is reported from now on is its curve; the earlier runs stay.
  void startRun();
  // Forgets every run (a new project).
  void clear();
  // A value a task reported: "loss", "accuracy" (training minibatch) or "held_out_accuracy";
  // other names are not charted here.
  void add(const QString& name, qint64 global_step, double value);
  // Points of the current run's loss curve.
  int lossPoints() const { return loss_points_; }

  ScalarChart* lossChart() const { return loss_; }
  ScalarChart* accuracyChart() const { return accuracy_; }

 private:
  void ensureRun();
  void removeEarlierRuns();
  void setSmoothing(int slider_value);

  ScalarChart* loss_ = nullptr;
  ScalarChart* accuracy_ = nullptr;
  QSlider* smoothing_ = nullptr;
  QLabel* smoothing_value_ = nullptr;
  QCheckBox* log_scale_ = nullptr;
  QListWidget* runs_ = nullptr;
  QPushButton* clear_ = nullptr;
  int run_ = 0;              // the current run's number (1, 2, ...), 0 before the first
  bool run_listed_ = false;  // the current run has reported something and is listed
  int loss_points_ = 0;
};

}  // namespace clab::ui
