// `clab export PROJECT --k8s DIR [--kind both|tfjob|pods]`: writes the project's cluster as
// Kubernetes manifests (a Kubeflow TFJob, and a headless Service with one Pod per task).
#pragma once

#include "cli/Command.h"

#include <string>

namespace clab::cli {

class ExportCommand : public Command {
 public:
  std::string name() const override { return "export"; }
  std::string summary() const override { return "Write a project's cluster as Kubernetes manifests"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::string project_;
  std::string k8s_dir_;
  std::string kind_ = "both";
};

}  // namespace clab::cli
