#include "teach/LessonScratch.h"

#include <QDir>

namespace clab::ui {

LessonScratch::LessonScratch(QObject* owner) : QObject(owner), dir_(QDir::temp().filePath("clusterlab-lesson-XXXXXX")) {
  setObjectName("lesson-scratch");
}

QString LessonScratch::fresh(QObject* owner, QString* error) {
  delete owner->findChild<LessonScratch*>("lesson-scratch", Qt::FindDirectChildrenOnly);
  auto* scratch = new LessonScratch(owner);
  if (!scratch->dir_.isValid()) {
    if (error) *error = tr("Cannot make a folder for the lesson's checkpoints: %1").arg(scratch->dir_.errorString());
    delete scratch;
    return {};
  }
  return scratch->dir_.path();
}

}  // namespace clab::ui
