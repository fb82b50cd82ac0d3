// View > Maximise graph: the Graph tab takes the whole window. The cluster canvas above the
// tabs and the dock panels (Task, Run settings, Lessons) are put away, and put back exactly
// as they were (sizes, tabs, which were open) when the action is toggled off or another tab
// is chosen.
#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>

class QAction;
class QMainWindow;
class QSplitter;
class QTabWidget;
class QWidget;

namespace clab::ui {

class GraphMaximiser : public QObject {
  Q_OBJECT

 public:
  // `splitter` holds `canvas` (the cluster canvas) and `tabs`; `graph` is the Graph tab.
  GraphMaximiser(QMainWindow* window, QSplitter* splitter, QWidget* canvas, QTabWidget* tabs, QWidget* graph);

  // Checkable, F11; its object name is "maximise-graph".
  QAction* action() const { return action_; }
  bool isMaximised() const { return maximised_; }
  void setMaximised(bool on);

 private:
  QMainWindow* window_;
  QSplitter* splitter_;
  QWidget* canvas_;
  QTabWidget* tabs_;
  QWidget* graph_;
  QAction* action_;
  bool maximised_ = false;
  // What was there before.
  QByteArray window_state_;
  QList<int> sizes_;
  bool canvas_shown_ = true;
};

}  // namespace clab::ui
