// `clab ckpt ls DIR` and `clab ckpt show PREFIX|DIR`: what a checkpoint directory holds,
// for people without the studio. Both read the files TensorFlow's tools read (the text
// "checkpoint" state file and the V2 bundle: P.index, P.data-00000-of-00001), and check
// every checksum they touch, so a truncated or corrupt checkpoint is named as such.
#pragma once

#include "cli/Command.h"

#include <cstdint>
#include <string>

namespace clab::cli {

class CkptLsCommand : public Command {
 public:
  std::string name() const override { return "ckpt ls"; }
  std::string summary() const override { return "List the checkpoints of a directory, newest last"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::string dir_;
};

class CkptShowCommand : public Command {
 public:
  std::string name() const override { return "ckpt show"; }
  std::string summary() const override { return "Show the variables of a checkpoint: dtype, shape, values"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::string path_;
  int64_t values_ = 6;
};

}  // namespace clab::cli
