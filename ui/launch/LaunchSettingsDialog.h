// Where and how the project runs beyond this machine, edited in one dialog: the launch
// method, each host's settings (user, ssh port, ClusterLab program, data and checkpoint
// directories; the "*" row stands for every host without a row of its own), and the
// options of ssh, SLURM and Kubernetes. The settings are checked as the project file
// would be read; the window makes the accepted settings one undoable edit.
#pragma once

#include "launch/project/LaunchSettings.h"

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;

namespace clab::ui {

class LaunchSettingsDialog : public QDialog {
  Q_OBJECT

 public:
  // `hosts`: the project's hosts, in the order of its tasks.
  LaunchSettingsDialog(const launch::LaunchSettings& settings, const QStringList& hosts, QWidget* parent = nullptr);

  // The settings as edited (valid once the dialog is accepted).
  launch::LaunchSettings settings() const { return settings_; }
  // Reads the widgets; false with the reason, naming the setting, when they are not valid.
  bool read(QString* error);

  QComboBox* methodBox() const { return method_; }
  QTableWidget* hostTable() const { return hosts_; }
  QLineEdit* sshConfigEdit() const { return ssh_config_; }

 private:
  void accept() override;
  QWidget* buildHosts(const QStringList& hosts);
  QWidget* buildOptions();

  launch::LaunchSettings settings_;
  QComboBox* method_ = nullptr;
  QTableWidget* hosts_ = nullptr;
  QCheckBox* copy_binary_ = nullptr;
  QCheckBox* restart_ = nullptr;
  QLineEdit* ssh_config_ = nullptr;
  QSpinBox* port_base_ = nullptr;
  QLineEdit* partition_ = nullptr;
  QLineEdit* time_limit_ = nullptr;
  QLineEdit* work_dir_ = nullptr;
  QCheckBox* overcommit_ = nullptr;
  QLineEdit* image_ = nullptr;
  QLineEdit* namespace_ = nullptr;
  QLineEdit* cpu_ = nullptr;
  QLineEdit* memory_ = nullptr;
  QLineEdit* claim_ = nullptr;
  QLabel* error_ = nullptr;
};

}  // namespace clab::ui
