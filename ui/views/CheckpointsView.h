// The checkpoints of the run's checkpoint directory: step, time written, size and whether
// each is whole (every tensor read and checked), newest first; selecting one lists its
// tensors (name, dtype, shape, first values). Refreshed when the chief reports a checkpoint,
// and on demand. "Restore on next start" (button or right-click) makes the next run's chief
// restore from the selected checkpoint; the checkpoint it will restore from is shown in bold
// and named above the table. Choosing is off while a run is going, whose chief rewrites the
// state file each time it saves.
#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace clab::ui {

class CheckpointTableModel;
class TensorTableModel;

class CheckpointsView : public QWidget {
  Q_OBJECT

 public:
  explicit CheckpointsView(QWidget* parent = nullptr);

  void setDirectory(const QString& dir);
  void refresh();
  // The directory's checkpoints, newest first, and the tensors of the one selected.
  CheckpointTableModel* checkpoints() const { return checkpoints_; }
  TensorTableModel* tensors() const { return tensors_; }

  // While a run is going, choosing the checkpoint to restore is off.
  void setRunActive(bool active);
  // Makes the next run restore from checkpoint `row`; false with a message naming the file.
  bool restoreOnNextStart(int row, QString* error);

 private:
  // "Next run restores from model.ckpt-125", or why nothing will be restored.
  QString nextRestoreText() const;
  int selectedRow() const;
  void chooseSelected();
  void updateButton();

  QString dir_;
  bool run_active_ = false;
  QLabel* header_ = nullptr;
  QLabel* next_ = nullptr;
  QPushButton* restore_ = nullptr;
  CheckpointTableModel* checkpoints_ = nullptr;
  TensorTableModel* tensors_ = nullptr;
  QTableView* checkpoint_table_ = nullptr;
  QTableView* tensor_table_ = nullptr;
};

}  // namespace clab::ui
