#include "window/ScreenFit.h"

#include <QGuiApplication>
#include <QScreen>

#include <QWidget>
#include <algorithm>

namespace clab::ui {

void FitToScreen(QWidget* window, QSize preferred) {
  QScreen* screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
  if (!screen) {
    window->resize(preferred);
    return;
  }
  const QRect available = screen->availableGeometry();
  // Room for a window manager's frame, which is only known once the window is shown.
  const QSize room = available.size() - QSize(16, 40);
  QSize size = preferred.boundedTo(room).expandedTo(window->minimumSizeHint().boundedTo(room));
  window->resize(size);
  const QPoint top_left = available.topLeft() + QPoint((available.width() - size.width()) / 2,
                                                       std::max(0, (available.height() - size.height() - 30) / 2));
  window->move(top_left);
}

}  // namespace clab::ui
