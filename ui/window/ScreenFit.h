// A top-level window's first size and place: `preferred` where the screen has room, otherwise
// as much of the screen's available area as it may take (at QT_SCALE_FACTOR=2 a 1920x1080
// screen is 960x540), centred on that area, so that nothing starts off-screen.
#pragma once

#include <QSize>

class QWidget;

namespace clab::ui {

void FitToScreen(QWidget* window, QSize preferred);

}  // namespace clab::ui
