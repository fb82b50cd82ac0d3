#include "graph/DeviceColors.h"

#include "clab/core/DeviceName.h"

#include <array>
#include <cmath>

namespace clab::ui {

QString DeviceColors::taskOf(const QString& device) {
  auto parsed = DeviceName::Parse(device.trimmed().toStdString());
  if (!parsed.ok() || !parsed->has_job) return {};
  QString task = "/job:" + QString::fromStdString(parsed->job);
  if (parsed->has_task) task += QStringLiteral("/task:%1").arg(parsed->task);
  return task;
}

void DeviceColors::add(const QString& device) {
  const QString task = taskOf(device);
  if (!task.isEmpty() && !tasks_.contains(task)) tasks_ << task;
}

QColor DeviceColors::color(const QString& device) const {
  const QString task = taskOf(device);
  const int i = tasks_.indexOf(task);
  if (task.isEmpty() || i < 0) return unplacedColor();
  // Light, distinct fills that keep black text readable; then hues around the wheel.
  static const std::array<QColor, 10> kPalette = {
      QColor(0xf6, 0xc1, 0x77), QColor(0x9f, 0xd3, 0xf0), QColor(0xb5, 0xe0, 0x9a), QColor(0xe8, 0xb0, 0xd8),
      QColor(0xf3, 0xe3, 0x7c), QColor(0xa9, 0xc4, 0xf5), QColor(0xf4, 0xa6, 0x9a), QColor(0x9c, 0xe0, 0xcf),
      QColor(0xd3, 0xbd, 0xf2), QColor(0xcf, 0xd8, 0x8c)};
  if (i < static_cast<int>(kPalette.size())) return kPalette[static_cast<size_t>(i)];
  return QColor::fromHsvF(std::fmod(0.618034 * i, 1.0), 0.35, 0.97);
}

}  // namespace clab::ui
