// The cluster canvas: one column per job (ps on the left, workers on the right, other jobs
// after), a card per task, and a dashed line from every worker to every ps: the links over
// which parameters travel. Rebuilt from the project whenever the cluster changes; task
// states come from the run monitor.
#pragma once

#include "project/Project.h"

#include <QColor>
#include <QGraphicsScene>
#include <QHash>

namespace clab::ui {

class TaskItem;

class ClusterScene : public QGraphicsScene {
  Q_OBJECT

 public:
  explicit ClusterScene(QObject* parent = nullptr);

  void setProject(const Project& project);
  void setTaskStatus(const QString& task, const QColor& light, const QString& text);
  void resetStatuses();
  TaskItem* item(const QString& task) const { return items_.value(task); }
  // The task whose card is selected ("" when none).
  QString selectedTask() const;

 signals:
  // A right click on a task's card (the window offers kill and restart during a run).
  void taskMenuRequested(const QString& task, const QPoint& screen_pos);

 protected:
  void contextMenuEvent(QGraphicsSceneContextMenuEvent* event) override;

 private:
  QHash<QString, TaskItem*> items_;
};

}  // namespace clab::ui
