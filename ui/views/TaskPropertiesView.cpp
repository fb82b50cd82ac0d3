#include "views/TaskPropertiesView.h"

#include "translations/Retranslate.h"

#include <QFormLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTextDocument>
#include <QVBoxLayout>

namespace clab::ui {

TaskPropertiesView::TaskPropertiesView(QWidget* parent) : QWidget(parent) {
  title_ = new QLabel(this);
  title_->setWordWrap(true);
  host_ = new QLineEdit(this);
  port_ = new QSpinBox(this);
  port_->setRange(0, 99999);  // out-of-range ports are accepted here and reported as problems
  problem_ = new QLabel(this);
  problem_->setStyleSheet("color: #c02020");
  problem_->setWordWrap(true);
  devices_ = new QLabel(this);
  devices_->setWordWrap(true);
  devices_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* form = new QFormLayout;
  auto* host_label = new QLabel(this);
  auto* port_label = new QLabel(this);
  form->addRow(host_label, host_);
  form->addRow(port_label, port_);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(title_);
  layout->addLayout(form);
  layout->addWidget(problem_);
  layout->addWidget(devices_);
  layout->addStretch(1);
  host_->installEventFilter(this);
  port_->installEventFilter(this);
  for (QLineEdit* inner : port_->findChildren<QLineEdit*>()) inner->installEventFilter(this);
  connect(host_, &QLineEdit::editingFinished, this, &TaskPropertiesView::emitEdit);
  connect(port_, &QSpinBox::editingFinished, this, &TaskPropertiesView::emitEdit);
  new Retranslate(this, [this, host_label, port_label] {
    host_->setToolTip(
        tr("The host the task runs on: a name or an address. Loopback addresses listen on loopback only."));
    port_->setToolTip(tr("The task's gRPC port (1-65535)"));
    host_label->setText(tr("Host"));
    port_label->setText(tr("Port"));
    showTitle();
    showDevices(devices_shown_);
  });
  showTask(nullptr, {});
}

void TaskPropertiesView::showTitle() {
  title_->setText(task_.isEmpty() ? tr("Select a task on the canvas to edit it.")
                                  : tr("<b>%1</b><br>job %2, task %3").arg(task_, job_).arg(index_));
}

void TaskPropertiesView::showTask(const ProjectTask* task, const QString& problem) {
  filling_ = true;
  task_ = task ? task->name() : QString();
  host_->setEnabled(task != nullptr);
  port_->setEnabled(task != nullptr);
  job_ = task ? task->job : QString();
  index_ = task ? task->index : 0;
  showTitle();
  shown_host_ = task ? task->host : QString();
  shown_port_ = task ? task->port : 0;
  host_->setText(shown_host_);
  port_->setValue(shown_port_);
  problem_->setText(problem);
  showDevices({});
  filling_ = false;
}

void TaskPropertiesView::showDevices(const QList<DeviceInfo>& devices) {
  devices_shown_ = devices;
  if (task_.isEmpty()) {
    devices_->clear();
    return;
  }
  QStringList lines;
  for (const DeviceInfo& device : devices)
    lines << QStringLiteral("%1<br>&nbsp;&nbsp;%2, %3%4")
                 .arg(device.name.toHtmlEscaped(), device.type.toHtmlEscaped(), MemoryText(device.memory_bytes),
                      device.description.isEmpty() ? QString() : ", " + device.description.toHtmlEscaped());
  devices_->setText("<b>" + tr("Devices") + "</b><br>" +
                    (lines.isEmpty() ? tr("known once the task runs") : lines.join("<br>")));
}

QString TaskPropertiesView::devicesText() const {
  QTextDocument document;
  document.setHtml(devices_->text());
  return document.toPlainText();
}

void TaskPropertiesView::setHost(const QString& host) {
  host_->setText(host);
  emitEdit();
}

void TaskPropertiesView::setPort(int port) {
  port_->setValue(port);
  emitEdit();
}

bool TaskPropertiesView::showsProject() const {
  return host_->text().trimmed() == shown_host_ && port_->value() == shown_port_;
}

bool TaskPropertiesView::eventFilter(QObject* watched, QEvent* event) {
  // A line edit takes Ctrl+Z for its own text (ShortcutOverride accepted). Ignoring it lets
  // the window's Undo shortcut fire instead, unless there is typing to undo.
  if (event->type() == QEvent::ShortcutOverride) {
    auto* key = static_cast<QKeyEvent*>(event);
    if ((key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo)) && showsProject()) {
      event->ignore();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void TaskPropertiesView::emitEdit() {
  if (filling_ || task_.isEmpty() || showsProject()) return;
  emit addressEdited(task_, host_->text().trimmed(), port_->value());
}

}  // namespace clab::ui
