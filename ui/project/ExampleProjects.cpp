#include "project/ExampleProjects.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace clab::ui {
namespace {

const QString kExamplesDir = QStringLiteral(":/examples");

// The examples' names, for the translation (File > Examples shows them translated).
[[maybe_unused]] const char* const kExampleNames[] = {
    QT_TRANSLATE_NOOP("clab::ui::ExampleProjects", "Digits CNN on a ps and two workers"),
    QT_TRANSLATE_NOOP("clab::ui::ExampleProjects", "Digits MLP on a ps and two workers"),
    QT_TRANSLATE_NOOP("clab::ui::ExampleProjects", "Softmax regression on Iris, a ps and two workers"),
    QT_TRANSLATE_NOOP("clab::ui::ExampleProjects", "Linear regression on synthetic data, synchronous replicas"),
    QT_TRANSLATE_NOOP("clab::ui::ExampleProjects", "Seed on two workers, 20,000 steps, with checkpoints"),
    QT_TRANSLATE_NOOP("clab::ui::ExampleProjects", "Seed: x . w on a ps and a worker"),
};

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
