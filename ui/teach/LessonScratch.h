// A scratch folder for a lesson's run (the ps-failure lesson's checkpoints), owned by the
// window: a fresh one each time a lesson asks for it, so that no lesson restores from an
// earlier lesson's checkpoints, removed when the next one is made or the window closes.
#pragma once

#include <QObject>
#include <QString>
#include <QTemporaryDir>

namespace clab::ui {

class LessonScratch : public QObject {
  Q_OBJECT

 public:
  // A new empty folder under `owner` (replacing the previous one); empty with `error` when
  // it cannot be made.
  static QString fresh(QObject* owner, QString* error);

 private:
  explicit LessonScratch(QObject* owner);
  QTemporaryDir dir_;
};

}  // namespace clab::ui
