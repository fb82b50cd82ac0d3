// `clab example seed --job_name ps|worker --task_index N`: the seed program, one task per
// process, exactly as examples/seed/seed_distributed runs it. `clab demo` starts two.
#pragma once

#include "cli/ClusterFlags.h"
#include "cli/Command.h"

#include <cstdint>

namespace clab::cli {

class ExampleSeedCommand : public Command {
 public:
  std::string name() const override { return "example seed"; }
  std::string summary() const override;
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  ClusterFlags cluster_flags_;
  int64_t last_step_ = 200;
  bool faithful_ = false;
  int64_t max_seconds_ = 0;
  std::string checkpoint_dir_;
  int64_t save_checkpoint_steps_ = 0;
  int64_t wait_for_ps_ms_ = 60000;
  int64_t wait_for_watcher_ms_ = 0;
};

}  // namespace clab::cli
