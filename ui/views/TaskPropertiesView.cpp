#include "views/TaskPropertiesView.h"

#include <QFormLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTextDocument>
#include <QVBoxLayout>

namespace clab::ui {

TaskPropertiesView::TaskPropertiesView(QWidget* parent) : QWidget(parent) {
  title_ = new QLabel("Select a task on the canvas to edit it.", this);
  title_->setWordWrap(true);
  host_ = new QLineEdit(this);
  host_->setToolTip("The host the task runs on: a name or an address. Loopback addresses listen on loopback only.");
  port_ = new QSpinBox(this);
  port_->setRange(0, 99999);  // out-of-range ports are accepted here and reported as problems
  port_->setToolTip("The task's gRPC port (1-65535)");
  problem_ = new QLabel(this);
  problem_->setStyleSheet("color: #c02020");
  problem_->setWordWrap(true);
  devices_ = new QLabel(this);
  devices_->setWordWrap(true);
  devices_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* form = new QFormLayout;
  form->addRow("Host", host_);
  form->addRow("Port", port_);
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
  showTask(nullptr, {});
}

void TaskPropertiesView::showTask(const ProjectTask* task, const QString& problem) {
  filling_ = true;
  task_ = task ? task->name() : QString();
  host_->setEnabled(task != nullptr);
  port_->setEnabled(task != nullptr);
  title_->setText(task ? QStringLiteral("<b>%1</b><br>job %2, task %3").arg(task->name(), task->job).arg(task->index)
                       : "Select a task on the canvas to edit it.");
  shown_host_ = task ? task->host : QString();
  shown_port_ = task ? task->port : 0;
  host_->setText(shown_host_);
  port_->setValue(shown_port_);
  problem_->setText(problem);
  showDevices({});
  filling_ = false;
}

void TaskPropertiesView::showDevices(const QList<DeviceInfo>& devices) {
  if (task_.isEmpty()) {
    devices_->clear();
    return;
  }
  QStringList lines;
  for (const DeviceInfo& device : devices)
    lines << QStringLiteral("%1<br>&nbsp;&nbsp;%2, %3%4")
                 .arg(device.name.toHtmlEscaped(), device.type.toHtmlEscaped(), MemoryText(device.memory_bytes),
                      device.description.isEmpty() ? QString() : ", " + device.description.toHtmlEscaped());
  devices_->setText(lines.isEmpty() ? "<b>Devices</b><br>known once the task runs"
                                    : "<b>Devices</b><br>" + lines.join("<br>"));
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
