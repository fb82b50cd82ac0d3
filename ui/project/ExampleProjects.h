// The example projects shipped with ClusterLab (examples/projects/*.clab), embedded in the
// studio under :/examples so that File > Examples lists every one of them wherever the studio
// is installed.
#pragma once

#include "project/Project.h"

#include <QList>
#include <QString>

namespace clab::ui {

struct ExampleProject {
  QString id;    // the file's base name: "digits-cnn"
  QString name;  // the project's own name
};

// Every embedded example, in file-name order.
QList<ExampleProject> ExampleProjects();
// Reads the example `id`; false with a message naming the example when it cannot.
bool LoadExampleProject(const QString& id, Project* project, QString* error);

}  // namespace clab::ui
