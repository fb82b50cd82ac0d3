#include "run/CheckpointChoice.h"

#include "clab/io/TensorBundle.h"
#include "clab/train/CheckpointState.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace clab::ui {
namespace {

QString Message(const Status& status) { return QString::fromStdString(std::string(status.message())); }

}  // namespace

bool CheckCheckpoint(const QString& prefix, QString* condition) {
  auto reader = TensorBundleReader::Open(prefix.toStdString());
  if (!reader.ok()) {
    *condition = Message(reader.status());
    return false;
  }
  const std::vector<BundleEntryInfo> entries = reader->List();
  for (const BundleEntryInfo& entry : entries) {
    auto tensor = reader->Read(entry.name);
    if (!tensor.ok()) {
      *condition = Message(tensor.status());
      return false;
    }
  }
  *condition = QCoreApplication::translate("clab::ui::CheckpointChoice", "ok, %1 tensors").arg(entries.size());
  return true;
}

QString NextRestoreCheckpoint(const QString& dir) {
  if (dir.isEmpty()) return {};
  auto state = ReadCheckpointState(dir.toStdString());
  return state.ok() ? QString::fromStdString(state->model_checkpoint_path()) : QString();
}

bool RestoreOnNextStart(const QString& dir, const QString& prefix, QString* error) {
  const QString state_file = QDir(dir).filePath("checkpoint");
  auto state = ReadCheckpointState(dir.toStdString());
  if (!state.ok()) {
    *error = Message(state.status());
    return false;
  }
  const std::string chosen = prefix.toStdString();
  auto& paths = *state->mutable_all_model_checkpoint_paths();
  if (std::find(paths.begin(), paths.end(), chosen) == paths.end() && state->model_checkpoint_path() != chosen) {
    *error =
        QCoreApplication::translate("clab::ui::CheckpointChoice", "%1 is not listed in %2").arg(prefix, state_file);
    return false;
  }
  QString condition;
  if (!CheckCheckpoint(prefix, &condition)) {
    *error = QCoreApplication::translate("clab::ui::CheckpointChoice", "Cannot restore from %1: %2")
                 .arg(QFileInfo(prefix).fileName(), condition);
    return false;
  }
  const QFileInfo directory(dir);
  if (!directory.isWritable()) {
    *error = QCoreApplication::translate("clab::ui::CheckpointChoice",
                                         "Cannot rewrite %1: the checkpoint directory %2 is not writable")
                 .arg(state_file, dir);
    return false;
  }
  paths.erase(std::remove(paths.begin(), paths.end(), chosen), paths.end());
  *state->add_all_model_checkpoint_paths() = chosen;
  state->set_model_checkpoint_path(chosen);
  const Status written = WriteCheckpointState(dir.toStdString(), *state);
  if (!written.ok()) {
    *error = QCoreApplication::translate("clab::ui::CheckpointChoice", "Cannot rewrite %1: %2")
                 .arg(state_file, Message(written));
    return false;
  }
  return true;
}

}  // namespace clab::ui
