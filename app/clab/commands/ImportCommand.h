// `clab import PROJECT --k8s FILE [--addresses project|kubernetes]`: puts the cluster that
// Kubernetes manifests describe (a TFJob, or Pods with TF_CONFIG and their headless
// Service) into a project.
#pragma once

#include "cli/Command.h"

#include <string>

namespace clab::cli {

class ImportCommand : public Command {
 public:
  std::string name() const override { return "import"; }
  std::string summary() const override { return "Put the cluster of Kubernetes manifests into a project"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::string project_;
  std::string k8s_file_;
  std::string addresses_ = "project";
};

}  // namespace clab::cli
