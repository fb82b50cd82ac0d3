// The command line that starts each task of a project by hand ("Copy start commands"): the
// arguments the studio's own launches give each task (program, run settings, the chief's
// checkpoint directory and interval, the security flags), on the project's addresses.
#pragma once

#include "project/Project.h"

#include <QStringList>

namespace clab::ui {

// `path`: the project's file ("" when unsaved). One line per task, or one "# ..." line
// naming what is wrong with the project.
QStringList StartCommands(const Project& project, const QString& path);

}  // namespace clab::ui
