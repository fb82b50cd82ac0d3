// What a lesson page's button does in the studio window: open an example, walk through one
// step in the teaching mode, start or stop the run, kill or restart a task, switch between
// asynchronous and synchronous updates.
#pragma once

#include "teach/Lessons.h"

namespace clab::ui {

class MainWindow;

// False with the reason (e.g. "the run is not started") when the studio cannot do it now.
bool PerformLessonAction(MainWindow& window, const LessonPage& page, QString* error);

}  // namespace clab::ui
