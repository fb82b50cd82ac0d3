// One undoable edit of the project (a task's address, a task added or removed, an import):
// the project before and after, so undo and redo restore exactly what was there. Projects
// are small; whole snapshots keep every edit trivially reversible.
#pragma once

#include "project/Project.h"

#include <QUndoCommand>

#include <functional>

namespace clab::ui {

class ProjectEditCommand : public QUndoCommand {
 public:
  using Apply = std::function<void(const Project&)>;

  ProjectEditCommand(const QString& text, Project before, Project after, Apply apply)
      : QUndoCommand(text), before_(std::move(before)), after_(std::move(after)), apply_(std::move(apply)) {}

  void undo() override { apply_(before_); }
  void redo() override { apply_(after_); }

 private:
  const Project before_;
  const Project after_;
  const Apply apply_;
};

}  // namespace clab::ui
