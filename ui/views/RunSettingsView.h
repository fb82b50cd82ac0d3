// The run settings of the project: StopAtStepHook's last step, the faithful mode (the
// tutorial's graph exactly, with no global step increment), synchronous replicas for the
// training programs, a time limit, the chief's checkpoint directory and how often it
// checkpoints (every N steps, every S seconds). Each finished edit is reported once, for one
// undoable step.
#pragma once

#include "project/Project.h"

#include <QWidget>

class QCheckBox;
class QLineEdit;
class QSpinBox;

namespace clab::ui {

class RunSettingsView : public QWidget {
  Q_OBJECT

 public:
  explicit RunSettingsView(QWidget* parent = nullptr);

  void showSettings(const RunSettings& settings);
  RunSettings settings() const;
  QSpinBox* saveCheckpointStepsBox() const { return save_checkpoint_steps_; }
  QSpinBox* saveCheckpointSecsBox() const { return save_checkpoint_secs_; }

 signals:
  void settingsEdited(const clab::ui::RunSettings& settings);

 private:
  void emitEdit();

  QSpinBox* last_step_ = nullptr;
  QCheckBox* faithful_ = nullptr;
  QCheckBox* sync_ = nullptr;
  QSpinBox* max_seconds_ = nullptr;
  QLineEdit* checkpoint_dir_ = nullptr;
  QSpinBox* save_checkpoint_steps_ = nullptr;
  QSpinBox* save_checkpoint_secs_ = nullptr;
  bool filling_ = false;
};

}  // namespace clab::ui
