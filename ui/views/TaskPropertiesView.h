// The selected task's properties: job and index, host and port, edited in place. Each
// finished edit is reported once (editingFinished), so the window can make it one undoable
// step; a value that makes the cluster invalid is still taken, and shown as a problem. Below,
// the task's devices (name, type, memory) as the running task reported them. Undo and Redo
// (Ctrl+Z, Ctrl+Shift+Z) in a field whose text is the project's go to the window's Undo and
// Redo, so they undo the project edit; in a field being typed in, they undo the typing first.
#pragma once

#include "monitor/DeviceInfo.h"
#include "project/Project.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QSpinBox;

namespace clab::ui {

class TaskPropertiesView : public QWidget {
  Q_OBJECT

 public:
  explicit TaskPropertiesView(QWidget* parent = nullptr);

  // Shows `task` (nullptr: nothing selected).
  void showTask(const ProjectTask* task, const QString& problem);
  // The shown task's devices; none: the task has not said (not running, or not reached).
  void showDevices(const QList<DeviceInfo>& devices);
  QString devicesText() const;
  void setHost(const QString& host);  // as if typed, for tests
  void setPort(int port);

 signals:
  void addressEdited(const QString& task, const QString& host, int port);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void emitEdit();
  void showTitle();
  // The fields say what the project says (no edit is being typed).
  bool showsProject() const;

  QString task_;
  QString job_;
  int index_ = 0;
  QList<DeviceInfo> devices_shown_;
  QLabel* title_ = nullptr;
  QLineEdit* host_ = nullptr;
  QSpinBox* port_ = nullptr;
  QLabel* problem_ = nullptr;
  QLabel* devices_ = nullptr;
  bool filling_ = false;
  QString shown_host_;
  int shown_port_ = 0;
};

}  // namespace clab::ui
