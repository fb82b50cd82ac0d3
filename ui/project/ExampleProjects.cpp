#include "project/ExampleProjects.h"

#include <QDir>
#include <QFileInfo>

namespace clab::ui {
namespace {

const QString kExamplesDir = QStringLiteral(":/examples");

}  // namespace

QList<ExampleProject> ExampleProjects() {
  QList<ExampleProject> examples;
  const QStringList files = QDir(kExamplesDir).entryList({"*.clab"}, QDir::Files, QDir::Name);
  for (const QString& file : files) {
    const QString id = QFileInfo(file).completeBaseName();
    Project project;
    QString error;
    if (!LoadExampleProject(id, &project, &error)) continue;  // the example suite checks every file loads
    examples.append({id, project.name});
  }
  return examples;
}

bool LoadExampleProject(const QString& id, Project* project, QString* error) {
  const QString path = kExamplesDir + "/" + id + ".clab";
  if (!QFileInfo::exists(path)) {
    *error = QStringLiteral("example '%1': no such example (known: %2)")
                 .arg(id, QDir(kExamplesDir).entryList({"*.clab"}, QDir::Files, QDir::Name).join(", "));
    return false;
  }
  return Project::load(path, project, error);
}

}  // namespace clab::ui
