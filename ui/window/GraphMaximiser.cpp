#include "window/GraphMaximiser.h"

#include "translations/Retranslate.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTabWidget>

namespace clab::ui {

GraphMaximiser::GraphMaximiser(QMainWindow* window, QSplitter* splitter, QWidget* canvas, QTabWidget* tabs,
                               QWidget* graph)
    : QObject(window), window_(window), splitter_(splitter), canvas_(canvas), tabs_(tabs), graph_(graph) {
  action_ = new QAction(this);
  action_->setObjectName("maximise-graph");
  action_->setCheckable(true);
  action_->setShortcut(Qt::Key_F11);
  action_->setShortcutContext(Qt::WindowShortcut);
  new Retranslate(window_, [this] {
    action_->setText(tr("&Maximise graph"));
    action_->setToolTip(tr("Give the Graph tab the whole window: the cluster canvas and the side panels make way"));
  });
  window_->addAction(action_);
  connect(action_, &QAction::toggled, this, &GraphMaximiser::setMaximised);
  // Choosing another tab brings the rest of the window back.
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    if (maximised_ && tabs_->currentWidget() != graph_) setMaximised(false);
  });
}

void GraphMaximiser::setMaximised(bool on) {
  if (on == maximised_) return;
  maximised_ = on;
  {
    const QSignalBlocker quiet(action_);
    action_->setChecked(on);
  }
  if (on) {
    window_state_ = window_->saveState();
    sizes_ = splitter_->sizes();
    canvas_shown_ = !canvas_->isHidden();
    tabs_->setCurrentWidget(graph_);
    canvas_->hide();
    for (QDockWidget* dock : window_->findChildren<QDockWidget*>())
      if (dock->parentWidget() == window_ && !dock->isFloating()) dock->hide();
    return;
  }
  canvas_->setVisible(canvas_shown_);
  window_->restoreState(window_state_);
  splitter_->setSizes(sizes_);
}

}  // namespace clab::ui
