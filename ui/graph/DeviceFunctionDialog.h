// The choices of replica_device_setter for the whole graph: how many of the project's ps
// tasks to spread the variables over, round robin or greedy (fewest bytes so far), and the
// worker device every other op gets.
#pragma once

#include "graph/DevicePlacement.h"

#include <QDialog>

class QComboBox;
class QSpinBox;

namespace clab::ui {

class DeviceFunctionDialog : public QDialog {
  Q_OBJECT

 public:
  DeviceFunctionDialog(int ps_tasks, const QStringList& workers, QWidget* parent = nullptr);
  SetterChoice choice() const;

 private:
  QSpinBox* ps_tasks_;
  QComboBox* strategy_;
  QComboBox* worker_;
};

}  // namespace clab::ui
