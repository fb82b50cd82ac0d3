// Which checkpoint of a checkpoint directory the next run's chief restores from, and
// changing it. A starting chief restores from the state file's ("checkpoint")
// model_checkpoint_path, falling back to older ones only when that one is damaged; choosing
// a checkpoint rewrites the state file (atomically, with the engine's CheckpointState code)
// so that it names the chosen prefix, and lists it last in all_model_checkpoint_paths, where
// the chief's saver would put the checkpoint it restored. Nothing is deleted: the newer
// checkpoints stay listed until the saver's max_to_keep lets them go.
#pragma once

#include <QString>

namespace clab::ui {

// Reads every tensor of checkpoint `prefix` (each checked against its CRC32C). True with
// "ok, 3 tensors", or false with what is wrong, naming the file at fault.
bool CheckCheckpoint(const QString& prefix, QString* condition);

// The prefix a chief starting now would try first; empty when `dir` has no state file.
QString NextRestoreCheckpoint(const QString& dir);

// Makes the next chief restore from `prefix`, one of `dir`'s checkpoints. False, changing
// nothing, with a message naming the file when the state file cannot be read or written or
// the checkpoint is damaged.
bool RestoreOnNextStart(const QString& dir, const QString& prefix, QString* error);

}  // namespace clab::ui
