// A device of a running task, as its GetTaskInfo reports it (TensorFlow's DeviceAttributes),
// and the ways the studio writes it: one line per device for the task panel, a few words
// for a task's card.
#pragma once

#include "tensorflow/device_attributes.pb.h"

#include <QList>
#include <QMetaType>
#include <QString>

namespace clab::ui {

struct DeviceInfo {
  QString name;  // "/job:ps/replica:0/task:0/device:CPU:0"
  QString type;  // "CPU", "GPU"
  qint64 memory_bytes = 0;
  QString description;  // the physical device, when the task says

  static DeviceInfo fromProto(const tensorflow::DeviceAttributes& attributes);
};

// "/job:ps/replica:0/task:0/device:CPU:0 (CPU, 256 MiB)" and, when known, the description.
QString DeviceText(const DeviceInfo& device);
// "CPU:0" or "CPU:0, GPU:0, GPU:1": the devices' short names.
QString DevicesSummary(const QList<DeviceInfo>& devices);
// "256 MiB", "80.0 GiB"; "memory unknown" for 0.
QString MemoryText(qint64 bytes);

}  // namespace clab::ui

Q_DECLARE_METATYPE(clab::ui::DeviceInfo)
