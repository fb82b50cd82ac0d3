#include "monitor/DeviceInfo.h"

#include <QCoreApplication>

#include <QStringList>

namespace clab::ui {

DeviceInfo DeviceInfo::fromProto(const tensorflow::DeviceAttributes& attributes) {
  return {QString::fromStdString(attributes.name()), QString::fromStdString(attributes.device_type()),
          attributes.memory_limit(), QString::fromStdString(attributes.physical_device_desc())};
}

QString MemoryText(qint64 bytes) {
  if (bytes <= 0) return QCoreApplication::translate("clab::ui::DeviceInfo", "memory unknown");
  constexpr qint64 kMiB = qint64{1} << 20;
  constexpr qint64 kGiB = qint64{1} << 30;
  if (bytes >= kGiB) return QStringLiteral("%1 GiB").arg(static_cast<double>(bytes) / kGiB, 0, 'f', 1);
  if (bytes >= kMiB) return QStringLiteral("%1 MiB").arg(bytes / kMiB);
  return QStringLiteral("%1 KiB").arg(bytes / 1024);
}

QString DeviceText(const DeviceInfo& device) {
  QString text = QStringLiteral("%1 (%2, %3)").arg(device.name, device.type, MemoryText(device.memory_bytes));
  if (!device.description.isEmpty()) text += ": " + device.description;
  return text;
}

QString DevicesSummary(const QList<DeviceInfo>& devices) {
  QStringList names;
  for (const DeviceInfo& device : devices) names << device.name.section("/device:", -1);
  return names.join(", ");
}

}  // namespace clab::ui
