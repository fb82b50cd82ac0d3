// One colour per task for the graph editor's placement view: "/job:ps/task:0" and
// "/job:ps/replica:0/task:0/device:CPU:0" are the same task and get the same colour. The
// project's tasks are registered first (ps before workers, as the cluster lists them), so a
// task keeps its colour whatever graph is shown; other tasks named by the graph follow.
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>

namespace clab::ui {

class DeviceColors {
 public:
  // "/job:J/task:T" ("/job:J" when the spec names no task); "" for no job or a spec the
  // engine cannot parse.
  static QString taskOf(const QString& device);

  void clear() { tasks_.clear(); }
  // Adds the task of `device` (when it names one) after those known.
  void add(const QString& device);
  const QStringList& tasks() const { return tasks_; }
  // The colour of `device`'s task; a neutral grey for no task.
  QColor color(const QString& device) const;
  static QColor unplacedColor() { return QColor(0xe6, 0xe6, 0xe6); }

 private:
  QStringList tasks_;
};

}  // namespace clab::ui
