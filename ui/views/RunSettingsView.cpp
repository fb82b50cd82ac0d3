#include "views/RunSettingsView.h"

#include "translations/Retranslate.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

namespace clab::ui {

RunSettingsView::RunSettingsView(QWidget* parent) : QWidget(parent) {
  last_step_ = new QSpinBox(this);
  last_step_->setRange(1, 1000000000);
  faithful_ = new QCheckBox(this);
  sync_ = new QCheckBox(this);
  max_seconds_ = new QSpinBox(this);
  max_seconds_->setRange(0, 86400);
  checkpoint_dir_ = new QLineEdit(this);
  save_checkpoint_steps_ = new QSpinBox(this);
  save_checkpoint_steps_->setObjectName("save_checkpoint_steps");
  save_checkpoint_steps_->setRange(0, 1000000000);
  save_checkpoint_secs_ = new QSpinBox(this);
  save_checkpoint_secs_->setObjectName("save_checkpoint_secs");
  save_checkpoint_secs_->setRange(0, 7 * 86400);
  auto* form = new QFormLayout(this);
  for (QWidget* field : std::initializer_list<QWidget*>{last_step_, faithful_, sync_, max_seconds_, checkpoint_dir_,
                                                        save_checkpoint_steps_, save_checkpoint_secs_})
    form->addRow(new QLabel(this), field);
  new Retranslate(this, [this, form] {
    last_step_->setToolTip(tr("StopAtStepHook(last_step=...): the workers stop when the global step reaches it"));
    faithful_->setText(tr("exactly the tutorial's graph"));
    faithful_->setToolTip(
        tr("Nothing increments the global step, as in the tutorial: the run never reaches the last step\n"
           "and only the time limit ends it (10 s unless set)"));
    sync_->setText(tr("synchronous replicas"));
    sync_->setToolTip(
        tr("SyncReplicasOptimizer: each global step applies the mean gradient of every worker;\n"
           "unchecked, every worker updates the ps on its own (asynchronously). Training programs only."));
    max_seconds_->setSpecialValueText(tr("none"));
    max_seconds_->setSuffix(tr(" s"));
    max_seconds_->setToolTip(tr("Stop the workers after this long (0: no limit)"));
    checkpoint_dir_->setPlaceholderText(tr("no checkpoints"));
    checkpoint_dir_->setToolTip(
        tr("Where the chief writes model.ckpt-N files and event files; a restarted chief restores from here"));
    save_checkpoint_steps_->setSpecialValueText(tr("not by steps"));
    save_checkpoint_steps_->setPrefix(tr("every "));
    save_checkpoint_steps_->setSuffix(tr(" steps"));
    save_checkpoint_steps_->setToolTip(
        tr("--save_checkpoint_steps: the chief checkpoints every N global steps (when set, it wins over seconds)"));
    save_checkpoint_secs_->setSpecialValueText(tr("every 600 s (default)"));
    save_checkpoint_secs_->setPrefix(tr("every "));
    save_checkpoint_secs_->setSuffix(tr(" s"));
    save_checkpoint_secs_->setToolTip(
        tr("--save_checkpoint_secs: the chief checkpoints every S seconds (0: TensorFlow's default of 600 s)"));
    const QStringList labels = {tr("Last step"),   tr("Faithful"),         tr("Updates"),        tr("Time limit"),
                                tr("Checkpoints"), tr("Checkpoint steps"), tr("Checkpoint time")};
    for (int row = 0; row < form->rowCount() && row < labels.size(); ++row)
      if (auto* label = qobject_cast<QLabel*>(form->itemAt(row, QFormLayout::LabelRole)->widget()))
        label->setText(labels[row]);
  });
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
