// `clab server --cluster SPEC --job_name ps --task_index 0`: runs one task of a cluster in
// the foreground (its master and worker services on the task's port) until Ctrl-C or
// SIGTERM, which stop it cleanly; with --until_workers_done also once every worker of the
// cluster has finished (what a batch job or a pod needs to end when training does).
#pragma once

#include "cli/ClusterFlags.h"
#include "cli/Command.h"

#include <string>
#include <vector>

namespace clab::cli {

class ServerCommand : public Command {
 public:
  std::string name() const override { return "server"; }
  std::string summary() const override;
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  ClusterFlags cluster_flags_;
  std::string protocol_ = "grpc";
  bool until_workers_done_ = false;
  std::vector<std::string> data_dirs_;
  std::string checkpoint_dir_;
};

}  // namespace clab::cli
