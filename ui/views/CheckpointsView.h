// The checkpoints of the run's checkpoint directory: step, time written, size and whether
// each is whole, newest first; selecting one lists its tensors (name, dtype, shape, first
// values). Refreshed when the chief reports a checkpoint, and on demand.
#pragma once

#include <QWidget>

class QLabel;
class QTableWidget;

namespace clab::ui {

class CheckpointsView : public QWidget {
  Q_OBJECT

 public:
  explicit CheckpointsView(QWidget* parent = nullptr);

  void setDirectory(const QString& dir);
  void refresh();
  int checkpointCount() const;
  // Shows the tensors of checkpoint `row` (0: the newest).
  void select(int row);
  int tensorCount() const;
  QString tensorText(int row, int column) const;

 private:
  void showTensors(const QString& prefix);

  QString dir_;
  QLabel* header_ = nullptr;
  QTableWidget* checkpoints_ = nullptr;
  QTableWidget* tensors_ = nullptr;
};

}  // namespace clab::ui
