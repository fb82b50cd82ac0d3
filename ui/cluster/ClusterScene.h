// The cluster canvas: one column per job (ps on the left, workers on the right, other jobs
// after), a card per task, and a dashed line from every worker to every ps: the links over
// which parameters travel. Rebuilt from the project whenever the cluster changes; task
// states come from the run monitor.
#pragma once

#include "project/Project.h"

#include <QColor>
#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
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
  // Shows the bytes per second on the link between two tasks ("" and thin when idle).
  void setLinkRate(const QString& a, const QString& b, double bytes_per_second);
  QString linkLabel(const QString& a, const QString& b) const;
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
  struct Link {
    QGraphicsLineItem* line = nullptr;
    QGraphicsSimpleTextItem* label = nullptr;
  };
  static QString linkKey(const QString& a, const QString& b) { return a < b ? a + "|" + b : b + "|" + a; }
  QHash<QString, Link> links_;
};

}  // namespace clab::ui
