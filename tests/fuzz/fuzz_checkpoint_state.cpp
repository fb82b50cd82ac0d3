// The text "checkpoint" file of a checkpoint directory, which restores and the studio read
// to find the newest checkpoint.
#include "FuzzFile.h"
#include "clab/train/CheckpointState.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static clab::fuzz::FuzzFile file("checkpoint");
  file.Write(data, size);
  (void)clab::ReadCheckpointState(file.dir());
  (void)clab::CheckpointsNewestFirst(file.dir());
  return 0;
}
