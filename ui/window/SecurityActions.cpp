#include "window/SecurityActions.h"

#include "clab/distributed/ClusterAccess.h"
#include "launch/security/ClusterCertificates.h"
#include "window/MainWindow.h"

#include <QDir>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include "translations/Retranslate.h"

namespace clab::ui {

SecurityActions::SecurityActions(MainWindow& window, QMenu* run_menu) : QObject(&window), window_(window) {
  QAction* protect = run_menu->addAction(QString(), this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(&window_, tr("Folder for the cluster's certificates"));
    if (dir.isEmpty()) return;
    QString error;
    if (!protectProject(dir, &error)) QMessageBox::warning(&window_, tr("Cannot protect the cluster"), error);
  });
  new Retranslate(&window, [protect] {
    protect->setText(tr("&Protect the cluster (TLS and token)..."));
    protect->setToolTip(
        tr("Make a cluster CA, a certificate per task and a token (as `clab cert`), and run the tasks with them"));
  });
}

bool SecurityActions::useAccess(const launch::ProjectSecurity& security, QString* error) {
  auto access = ClusterAccess::Load(security.tls_dir, kClientCertificateName, security.token_file);
  if (!access.ok()) {
    *error = QString::fromStdString(std::string(access.status().message()));
    return false;
  }
  SetDefaultClusterAccess(*std::move(access));
  return true;
}

bool SecurityActions::protectProject(const QString& dir, QString* error) {
  auto file = window_.project().toProjectFile(window_.path());
  if (!file.ok()) {
    *error = QString::fromStdString(std::string(file.status().message()));
    return false;
  }
  launch::ClusterCertificateOptions options;
  options.dir = QDir(dir).absolutePath().toStdString();
  options.cluster = file->cluster;
  auto made = launch::MakeClusterCertificates(options);
  if (!made.ok()) {
    *error = QString::fromStdString(std::string(made.status().message()));
    return false;
  }
  launch::ProjectSecurity security = file->security;
  security.tls_dir = options.dir;
  security.token_file = options.dir + "/cluster.token";
  window_.editSecurity(security);
  window_.statusBar()->showMessage(tr("Certificates and token written to %1").arg(dir), 5000);
  return true;
}

}  // namespace clab::ui
