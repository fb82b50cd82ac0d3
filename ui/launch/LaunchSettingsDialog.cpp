#include "launch/LaunchSettingsDialog.h"

#include <nlohmann/json.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace clab::ui {
namespace {

enum Column { kHost, kUser, kPort, kBinary, kDataDir, kCheckpointDir, kColumns };

QString Q(const std::string& text) { return QString::fromStdString(text); }

QLineEdit* Line(const std::string& text, const QString& placeholder, QWidget* parent) {
  auto* line = new QLineEdit(Q(text), parent);
  line->setPlaceholderText(placeholder);
  return line;
}

}  // namespace

LaunchSettingsDialog::LaunchSettingsDialog(const launch::LaunchSettings& settings, const QStringList& hosts,
                                           QWidget* parent)
    : QDialog(parent), settings_(settings) {
  setWindowTitle(tr("Run on hosts"));
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  method_ = new QComboBox(this);
  method_->addItem(tr("This machine"), "local");
  method_->addItem(tr("Hosts over SSH"), "ssh");
  method_->addItem(tr("A SLURM job"), "slurm");
  method_->addItem(tr("Kubernetes (export manifests)"), "kubernetes");
  method_->setCurrentIndex(std::max(0, method_->findData(Q(settings.method))));
  form->addRow(tr("Launch method:"), method_);
  layout->addLayout(form);
  layout->addWidget(buildHosts(hosts));
  layout->addWidget(buildOptions());
  error_ = new QLabel(this);
  error_->setStyleSheet("color: #c62828");
  error_->setWordWrap(true);
  layout->addWidget(error_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &LaunchSettingsDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(820, 560);
}

QWidget* LaunchSettingsDialog::buildHosts(const QStringList& hosts) {
  auto* box = new QGroupBox(tr("Hosts (empty fields: what ssh and the host decide)"), this);
  auto* layout = new QVBoxLayout(box);
  hosts_ = new QTableWidget(0, kColumns, box);
  hosts_->setHorizontalHeaderLabels({tr("Host"), tr("User"), tr("SSH port"), tr("ClusterLab program"),
                                     tr("Data directory"), tr("Checkpoint directory")});
  hosts_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  QStringList rows = hosts;
  rows << "*";
  for (const auto& [host, entry] : settings_.hosts)
    if (!rows.contains(Q(host))) rows << Q(host);
  for (const QString& host : rows) {
    const launch::HostSettings entry =
        settings_.hosts.count(host.toStdString()) ? settings_.hosts.at(host.toStdString()) : launch::HostSettings();
    const int row = hosts_->rowCount();
    hosts_->insertRow(row);
    auto* name = new QTableWidgetItem(host);
    name->setFlags(name->flags() & ~Qt::ItemIsEditable);
    if (host == "*") name->setToolTip(tr("Every host without a row of its own"));
    hosts_->setItem(row, kHost, name);
    hosts_->setItem(row, kUser, new QTableWidgetItem(Q(entry.user)));
    hosts_->setItem(row, kPort, new QTableWidgetItem(entry.ssh_port ? QString::number(entry.ssh_port) : QString()));
    hosts_->setItem(row, kBinary, new QTableWidgetItem(Q(entry.binary)));
    hosts_->setItem(row, kDataDir, new QTableWidgetItem(Q(entry.data_dir)));
    hosts_->setItem(row, kCheckpointDir, new QTableWidgetItem(Q(entry.checkpoint_dir)));
  }
  layout->addWidget(hosts_);
  return box;
}

QWidget* LaunchSettingsDialog::buildOptions() {
  auto* row = new QWidget(this);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);

  auto* ssh = new QGroupBox(tr("SSH"), row);
  auto* ssh_form = new QFormLayout(ssh);
  copy_binary_ = new QCheckBox(tr("Copy this ClusterLab to each host (scp)"), ssh);
  copy_binary_->setChecked(settings_.ssh.copy_binary);
  restart_ = new QCheckBox(tr("Start a failed task again"), ssh);
  restart_->setChecked(settings_.ssh.restart == "on-failure");
  ssh_config_ = Line(settings_.ssh.config, tr("your own (~/.ssh/config)"), ssh);
  ssh_form->addRow(copy_binary_);
  ssh_form->addRow(restart_);
  ssh_form->addRow(tr("Configuration file:"), ssh_config_);
  layout->addWidget(ssh);

  auto* slurm = new QGroupBox(tr("SLURM"), row);
  auto* slurm_form = new QFormLayout(slurm);
  port_base_ = new QSpinBox(slurm);
  port_base_->setRange(1, 65535);
  port_base_->setValue(settings_.slurm.port_base);
  partition_ = Line(settings_.slurm.partition, tr("the default"), slurm);
  time_limit_ = Line(settings_.slurm.time_limit, tr("the partition's"), slurm);
  work_dir_ = Line(settings_.slurm.work_dir, tr("beside the project"), slurm);
  overcommit_ = new QCheckBox(tr("More tasks than CPUs"), slurm);
  overcommit_->setChecked(settings_.slurm.overcommit);
  slurm_form->addRow(tr("First port:"), port_base_);
  slurm_form->addRow(tr("Partition:"), partition_);
  slurm_form->addRow(tr("Time limit:"), time_limit_);
  slurm_form->addRow(tr("Job directory:"), work_dir_);
  slurm_form->addRow(overcommit_);
  layout->addWidget(slurm);

  auto* kubernetes = new QGroupBox(tr("Kubernetes"), row);
  auto* kubernetes_form = new QFormLayout(kubernetes);
  image_ = Line(settings_.kubernetes.image, {}, kubernetes);
  namespace_ = Line(settings_.kubernetes.name_space, {}, kubernetes);
  cpu_ = Line(settings_.kubernetes.cpu, {}, kubernetes);
  memory_ = Line(settings_.kubernetes.memory, {}, kubernetes);
  claim_ = Line(settings_.kubernetes.checkpoint_claim, tr("none"), kubernetes);
  kubernetes_form->addRow(tr("Image:"), image_);
  kubernetes_form->addRow(tr("Namespace:"), namespace_);
  kubernetes_form->addRow(tr("CPU:"), cpu_);
  kubernetes_form->addRow(tr("Memory:"), memory_);
  kubernetes_form->addRow(tr("Checkpoint volume claim:"), claim_);
  layout->addWidget(kubernetes);
  return row;
}

bool LaunchSettingsDialog::read(QString* error) {
  launch::LaunchSettings edited = settings_;
  edited.method = method_->currentData().toString().toStdString();
  edited.hosts.clear();
  for (int row = 0; row < hosts_->rowCount(); ++row) {
    auto text = [&](int column) {
      return hosts_->item(row, column) ? hosts_->item(row, column)->text().trimmed() : QString();
    };
    launch::HostSettings entry;
    entry.user = text(kUser).toStdString();
    bool ok = true;
    entry.ssh_port = text(kPort).isEmpty() ? 0 : text(kPort).toInt(&ok);
    if (!ok || entry.ssh_port < 0 || entry.ssh_port > 65535) {
      *error = tr("%1: the SSH port '%2' is not a port (1-65535)").arg(text(kHost), text(kPort));
      return false;
    }
    entry.binary = text(kBinary).toStdString();
    entry.data_dir = text(kDataDir).toStdString();
    entry.checkpoint_dir = text(kCheckpointDir).toStdString();
    if (!(entry == launch::HostSettings())) edited.hosts[text(kHost).toStdString()] = entry;
  }
  edited.ssh.copy_binary = copy_binary_->isChecked();
  edited.ssh.restart = restart_->isChecked() ? "on-failure" : "never";
  edited.ssh.config = ssh_config_->text().trimmed().toStdString();
  edited.slurm.port_base = port_base_->value();
  edited.slurm.partition = partition_->text().trimmed().toStdString();
  edited.slurm.time_limit = time_limit_->text().trimmed().toStdString();
  edited.slurm.work_dir = work_dir_->text().trimmed().toStdString();
  edited.slurm.overcommit = overcommit_->isChecked();
  edited.kubernetes.image = image_->text().trimmed().toStdString();
  edited.kubernetes.name_space = namespace_->text().trimmed().toStdString();
  edited.kubernetes.cpu = cpu_->text().trimmed().toStdString();
  edited.kubernetes.memory = memory_->text().trimmed().toStdString();
  edited.kubernetes.checkpoint_claim = claim_->text().trimmed().toStdString();
  // Checked exactly as the project file will be read.
  auto checked = launch::LaunchSettings::FromJson(edited.ToJson());
  if (!checked.ok()) {
    *error = QString::fromStdString(std::string(checked.status().message()));
    return false;
  }
  settings_ = *std::move(checked);
  return true;
}

void LaunchSettingsDialog::accept() {
  QString error;
  if (!read(&error)) {
    error_->setText(error);
    return;
  }
  QDialog::accept();
}

}  // namespace clab::ui
