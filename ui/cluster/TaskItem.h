// One task on the cluster canvas: a card with the job and index, its address and a status
// light (grey: not running; amber: starting or waiting; green: ready or training; blue:
// finished; red: failed). A task with a problem (bad port, duplicate address) gets a red
// outline and the problem as its tooltip. Once the task says what devices it has, their short
// names show at the card's top right ("CPU:0") and the full list in its tooltip.
#pragma once

#include "monitor/DeviceInfo.h"

#include <QColor>
#include <QGraphicsObject>
#include <QString>

namespace clab::ui {

class TaskItem : public QGraphicsObject {
  Q_OBJECT

 public:
  static constexpr qreal kWidth = 190;
  static constexpr qreal kHeight = 64;

  TaskItem(QString task, QString job, int index, QString address, QGraphicsItem* parent = nullptr);

  const QString& task() const { return task_; }
  void setAddress(const QString& address);
  void setStatus(const QColor& light, const QString& text);
  const QColor& light() const { return light_; }
  const QString& statusText() const { return status_; }
  void setProblem(const QString& problem);  // empty: none
  void setDevices(const QList<DeviceInfo>& devices);
  const QString& devicesSummary() const { return devices_summary_; }

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  const QString task_;
  const QString job_;
  const int index_;
  QString address_;
  QColor light_ = QColor(150, 150, 150);
  QString status_;
  QString problem_;
  QString devices_summary_;
  QString devices_text_;  // one line per device, for the tooltip

  void updateToolTip();
};

}  // namespace clab::ui
