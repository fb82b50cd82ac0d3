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
  auto* form = new QFormLayout(this);
  form->addRow("Last step", last_step_);
  form->addRow("Faithful", faithful_);
  form->addRow("Updates", sync_);
  form->addRow("Time limit", max_seconds_);
  form->addRow("Checkpoints", checkpoint_dir_);
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
  filling_ = false;
}

RunSettings RunSettingsView::settings() const {
  RunSettings settings;
  settings.last_step = last_step_->value();
  settings.faithful = faithful_->isChecked();
  settings.sync = sync_->isChecked();
  settings.max_seconds = max_seconds_->value();
  settings.checkpoint_dir = checkpoint_dir_->text().trimmed();
  return settings;
}

void RunSettingsView::emitEdit() {
  if (!filling_) emit settingsEdited(settings());
}

}  // namespace clab::ui
