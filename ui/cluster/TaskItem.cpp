#include "cluster/TaskItem.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace clab::ui {

TaskItem::TaskItem(QString task, QString job, int index, QString address, QGraphicsItem* parent)
    : QGraphicsObject(parent), task_(std::move(task)), job_(std::move(job)), index_(index),
      address_(std::move(address)), status_(tr("not running")) {
  setFlags(ItemIsSelectable | ItemIsMovable);
  setToolTip(task_);
}

void TaskItem::setAddress(const QString& address) {
  address_ = address;
  update();
}

void TaskItem::setStatus(const QColor& light, const QString& text) {
  light_ = light;
  status_ = text;
  updateToolTip();
  update();
}

void TaskItem::setProblem(const QString& problem) {
  problem_ = problem;
  updateToolTip();
  update();
}

void TaskItem::setDevices(const QList<DeviceInfo>& devices) {
  devices_summary_ = DevicesSummary(devices);
  QStringList lines;
  for (const DeviceInfo& device : devices) lines << "  " + DeviceText(device);
  devices_text_ = lines.join('\n');
  updateToolTip();
  update();
}

void TaskItem::updateToolTip() {
  QString tip = task_;
  if (!problem_.isEmpty()) tip += "\n" + problem_;
  if (!status_.isEmpty()) tip += "\n" + status_;
  if (!devices_text_.isEmpty()) tip += "\n" + tr("Devices:") + "\n" + devices_text_;
  setToolTip(tip);
}

QRectF TaskItem::boundingRect() const { return QRectF(-2, -2, kWidth + 4, kHeight + 4); }

void TaskItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  const QRectF card(0, 0, kWidth, kHeight);
  const bool selected = option->state & QStyle::State_Selected;
  QColor border = problem_.isEmpty() ? QColor(120, 130, 145) : QColor(210, 40, 40);
  if (selected) border = QColor(40, 110, 220);
  painter->setPen(QPen(border, problem_.isEmpty() && !selected ? 1.2 : 2.4));
  painter->setBrush(job_ == "ps" ? QColor(255, 248, 232) : QColor(236, 244, 255));
  painter->drawRoundedRect(card, 8, 8);

  painter->setPen(Qt::NoPen);
  painter->setBrush(light_);
  painter->drawEllipse(QPointF(kWidth - 16, 16), 6, 6);

  const QFont base = painter->font();
  QFont small = base;
  small.setBold(false);
  qreal devices_width = 0;
  if (!devices_summary_.isEmpty()) {
    QFont tiny = small;
    tiny.setPointSizeF(small.pointSizeF() * 0.85);
    painter->setFont(tiny);
    const QString devices =
        painter->fontMetrics().elidedText(devices_summary_, Qt::ElideRight, static_cast<int>(kWidth / 2 - 30));
    devices_width = painter->fontMetrics().horizontalAdvance(devices) + 6;
    painter->setPen(QColor(95, 100, 115));
    painter->drawText(QRectF(kWidth - 28 - devices_width, 5, devices_width, 20), Qt::AlignRight | Qt::AlignVCenter,
                      devices);
  }
  QFont title = base;
  title.setBold(true);
  painter->setFont(title);
  painter->setPen(QColor(30, 35, 45));
  painter->drawText(QRectF(10, 5, kWidth - 34 - devices_width, 20), Qt::AlignLeft | Qt::AlignVCenter,
                    tr("%1 / task %2").arg(job_).arg(index_));
  painter->setFont(small);
  painter->setPen(QColor(70, 75, 85));
  painter->drawText(QRectF(10, 24, kWidth - 20, 18), Qt::AlignLeft | Qt::AlignVCenter, address_);
  painter->setPen(problem_.isEmpty() ? QColor(90, 95, 105) : QColor(190, 30, 30));
  const QString line = problem_.isEmpty() ? status_ : problem_;
  painter->drawText(QRectF(10, 42, kWidth - 20, 18), Qt::AlignLeft | Qt::AlignVCenter,
                    painter->fontMetrics().elidedText(line, Qt::ElideRight, static_cast<int>(kWidth - 20)));
}

}  // namespace clab::ui
