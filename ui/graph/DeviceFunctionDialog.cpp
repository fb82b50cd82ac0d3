#include "graph/DeviceFunctionDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QSpinBox>

namespace clab::ui {

DeviceFunctionDialog::DeviceFunctionDialog(int ps_tasks, const QStringList& workers, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle("replica_device_setter");
  ps_tasks_ = new QSpinBox(this);
  ps_tasks_->setRange(1, std::max(1, ps_tasks));
  ps_tasks_->setValue(std::max(1, ps_tasks));
  strategy_ = new QComboBox(this);
  strategy_->addItem(tr("round robin (TensorFlow's default)"));
  strategy_->addItem(tr("greedy: the ps with the fewest bytes so far"));
  worker_ = new QComboBox(this);
  worker_->setEditable(true);
  worker_->addItems(workers.isEmpty() ? QStringList{"/job:worker/task:0"} : workers);
  auto* form = new QFormLayout(this);
  form->addRow(tr("ps tasks"), ps_tasks_);
  form->addRow(tr("Strategy"), strategy_);
  form->addRow(tr("Worker device"), worker_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  form->addRow(buttons);
}

SetterChoice DeviceFunctionDialog::choice() const {
  SetterChoice choice;
  choice.ps_tasks = ps_tasks_->value();
  choice.greedy = strategy_->currentIndex() == 1;
  choice.worker_device = worker_->currentText().trimmed().toStdString();
  return choice;
}

}  // namespace clab::ui
