// The studio's side of protecting a cluster, in the main window's Run menu: "Protect the
// cluster..." makes the project's certificates and token into a folder (the code of `clab
// cert`) and sets the project's security section to them (one undoable edit), so that every
// task the studio starts gets --tls_dir and --token_file and the studio watches them as the
// cluster's client.
#pragma once

#include "launch/project/ProjectSecurity.h"

#include <QObject>
#include <QString>

class QMenu;

namespace clab::ui {

class MainWindow;

class SecurityActions : public QObject {
  Q_OBJECT

 public:
  SecurityActions(MainWindow& window, QMenu* run_menu);

  // Makes the certificates of the project's cluster in `dir` and points the project at
  // them; false with the reason.
  bool protectProject(const QString& dir, QString* error);
  // Makes `security` (client certificate and token) the studio's access for the tasks it
  // watches; false with the reason.
  static bool useAccess(const launch::ProjectSecurity& security, QString* error);

 private:
  MainWindow& window_;
};

}  // namespace clab::ui
