// What a checkpoint directory must look like while and after a chief writes it: every
// checkpoint the `checkpoint` state file names reads back whole (every tensor, every CRC),
// and no file is left that belongs to nothing (a temporary file of an interrupted save, the
// data or index of a checkpoint the state file does not name).
#pragma once

#include "clab/io/TensorBundle.h"
#include "clab/train/CheckpointState.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <string>
#include <vector>

namespace clab::testing {

// Opens `prefix` and reads every tensor in it (the reader checks each CRC32C).
inline Status ReadBackCheckpoint(const std::string& prefix, int* tensors = nullptr) {
  CLAB_ASSIGN_OR_RETURN(TensorBundleReader reader, TensorBundleReader::Open(prefix));
  int read = 0;
  for (const BundleEntryInfo& entry : reader.List()) {
    StatusOr<Tensor> value = reader.Read(entry.name);
    if (!value.ok()) return value.status();
    ++read;
  }
  if (read == 0) return errors::DataLoss("Checkpoint ", prefix, " holds no tensors");
  if (tensors != nullptr) *tensors = read;
  return OkStatus();
}

// Reads back every checkpoint the state file of `dir` names; the prefixes read, newest
// first. A chief may be saving meanwhile: a checkpoint that fails to read because the saver
// dropped it (the state file no longer names it) is not an error, so a failure is checked
// against a fresh read of the state file before it counts.
inline StatusOr<std::vector<std::string>> ReadBackListedCheckpoints(const std::string& dir) {
  CLAB_ASSIGN_OR_RETURN(std::vector<std::string> listed, CheckpointsNewestFirst(dir));
  std::vector<std::string> read;
  for (const std::string& prefix : listed) {
    Status status = ReadBackCheckpoint(prefix);
    if (!status.ok()) {
      CLAB_ASSIGN_OR_RETURN(std::vector<std::string> now, CheckpointsNewestFirst(dir));
      if (std::find(now.begin(), now.end(), prefix) == now.end()) continue;
      // Still named: read it once more, in case it was being replaced under the same name.
      status = ReadBackCheckpoint(prefix);
      if (!status.ok()) return status;
    }
    read.push_back(prefix);
  }
  return read;
}

// Files in `dir` that belong to nothing the state file names: temporary files, the data,
// index or meta graph of an unnamed checkpoint of `basename`, anything unknown. The state file, event
// files and graph.pbtxt belong. A save in progress has such files for a moment; a caller
// compares two lists taken with saves in between to find files that stay.
inline QSet<QString> UnclaimedCheckpointFiles(const std::string& dir, const QString& basename = "model.ckpt") {
  QSet<QString> listed;
  if (auto prefixes = CheckpointsNewestFirst(dir); prefixes.ok())
    for (const std::string& prefix : *prefixes) listed.insert(QFileInfo(QString::fromStdString(prefix)).fileName());
  const QRegularExpression part("^(" + QRegularExpression::escape(basename) +
                                "-\\d+)(\\.index|\\.data-\\d{5}-of-\\d{5}|\\.meta)$");
  QSet<QString> unclaimed;
  for (const QString& name : QDir(QString::fromStdString(dir)).entryList(QDir::Files | QDir::Hidden)) {
    if (name == "checkpoint" || name == "graph.pbtxt" || name.startsWith("events.out.tfevents.")) continue;
    const QRegularExpressionMatch match = part.match(name);
    if (match.hasMatch() && listed.contains(match.captured(1))) continue;
    unclaimed.insert(name);
  }
  return unclaimed;
}

}  // namespace clab::testing
