// `clab export PROJECT --k8s DIR`: writes the project's manifests into DIR as YAML,
// "<name>-tfjob.yaml" (the Kubeflow TFJob) and "<name>-pods.yaml" (the headless Service and
// a Pod per task), ready for `kubectl apply -f`.
#pragma once

#include "clab/core/Status.h"
#include "launch/project/ProjectFile.h"

#include <string>
#include <vector>

namespace clab::launch {

struct KubernetesExportResult {
  std::vector<std::string> files;  // written
  std::vector<std::string> notes;  // what was left out and why (a job a TFJob cannot hold)
};

// `kinds`: "tfjob", "pods" or "both".
StatusOr<KubernetesExportResult> ExportKubernetes(const ProjectFile& project, const std::string& dir,
                                                  const std::string& kinds = "both");

}  // namespace clab::launch
