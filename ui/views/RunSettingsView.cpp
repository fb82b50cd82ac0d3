#include "views/RunSettingsView.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>

namespace clab::ui {

RunSettingsView::RunSettingsView(QWidget* parent) : QWidget(parent) {
  last_step_ = new QSpinBox(this);
  last_step_->setRange(1, 1000000000);
  last_step_->setToolTip("StopAtStepHook(last_step=...): the workers stop when the global step reaches it");
  faithful_ = new QCheckBox("exactly the tutorial's graph", this);
  faithful_->setToolTip(
      "Nothing increments the global step, as in the tutorial: the run never reaches the last step\n"
      "and only the time limit ends it (10 s unless set)");
  sync_ = new QCheckBox("synchronous replicas", this);
  sync_->setToolTip(
      "SyncReplicasOptimizer: each global step applies the mean gradient of every worker;\n"
      "unchecked, every worker updates the ps on its own (asynchronously). Training programs only.");
  max_seconds_ = new QSpinBox(this);
  max_seconds_->setRange(0, 86400);
  max_seconds_->setSpecialValueText("none");
  max_seconds_->setSuffix(" s");
  max_seconds_->setToolTip("Stop the workers after this long (0: no limit)");
  checkpoint_dir_ = new QLineEdit(this);
  checkpoint_dir_->setPlaceholderText("no checkpoints");
  checkpoint_dir_->setToolTip(
      "Where the chief writes model.ckpt-N files and event files; a restarted chief restores "
      "from here");
  save_checkpoint_steps_ = new QSpinBox(this);
  save_checkpoint_steps_->setObjectName("save_checkpoint_steps");
  save_checkpoint_steps_->setRange(0, 1000000000);
  save_checkpoint_steps_->setSpecialValueText("not by steps");
  save_checkpoint_steps_->setPrefix("every ");
  save_checkpoint_steps_->setSuffix(" steps");
  save_checkpoint_steps_->setToolTip(
      "--save_checkpoint_steps: the chief checkpoints every N global steps (when set, it wins over seconds)");
  save_checkpoint_secs_ = new QSpinBox(this);
  save_checkpoint_secs_->setObjectName("save_checkpoint_secs");
  save_checkpoint_secs_->setRange(0, 7 * 86400);
  save_checkpoint_secs_->setSpecialValueText("every 600 s (default)");
  save_checkpoint_secs_->setPrefix("every ");
  save_checkpoint_secs_->setSuffix(" s");
  save_checkpoint_secs_->setToolTip(
      "--save_checkpoint_secs: the chief checkpoints every S seconds (0: TensorFlow's default of 600 s)");
  auto* form = new QFormLayout(this);
  form->addRow("Last step", last_step_);
  form->addRow("Faithful", faithful_);
  form->addRow("Updates", sync_);
  form->addRow("Time limit", max_seconds_);
  form->addRow("Checkpoints", checkpoint_dir_);
  form->addRow("Checkpoint steps", save_checkpoint_steps_);
  form->addRow("Checkpoint time", save_checkpoint_secs_);
  connect(save_checkpoint_steps_, &QSpinBox::editingFinished, this, &RunSettingsView::emitEdit);
  connect(save_checkpoint_secs_, &QSpinBox::editingFinished, this, &RunSettingsView::emitEdit);
  connect(last_step_, &QSpinBox::editingFinished, this, &RunSettingsView::emitEdit);
  connect(max_seconds_, &QSpinBox::editingFinished, this, &RunSettingsView::emitEdit);
  connect(checkpoint_dir_, &QLineEdit::editingFinished, this, &RunSettingsView::emitEdit);
  connect(faithful_, &QCheckBox::toggled, this, &RunSettingsView::emitEdit);
  connect(sync_, &QCheckBox::toggled, this, &RunSettingsView::emitEdit);
}

void RunSettingsView::showSettings(const RunSettings& settings) {
  filling_ = true;
  last_step_->setValue(static_cast<int>(std::min<qint64>(settings.last_step, last_step_->maximum())));
  faithful_->setChecked(settings.faithful);
  sync_->setChecked(settings.sync);
  max_seconds_->setValue(settings.max_seconds);
  checkpoint_dir_->setText(settings.checkpoint_dir);
  save_checkpoint_steps_->setValue(
      static_cast<int>(std::min<qint64>(settings.save_checkpoint_steps, save_checkpoint_steps_->maximum())));
  save_checkpoint_secs_->setValue(std::min(settings.save_checkpoint_secs, save_checkpoint_secs_->maximum()));
  filling_ = false;
}

RunSettings RunSettingsView::settings() const {
  RunSettings settings;
  settings.last_step = last_step_->value();
  settings.faithful = faithful_->isChecked();
  settings.sync = sync_->isChecked();
  settings.max_seconds = max_seconds_->value();
  settings.checkpoint_dir = checkpoint_dir_->text().trimmed();
  settings.save_checkpoint_steps = save_checkpoint_steps_->value();
  settings.save_checkpoint_secs = save_checkpoint_secs_->value();
  return settings;
}

void RunSettingsView::emitEdit() {
  if (!filling_) emit settingsEdited(settings());
}

}  // namespace clab::ui
