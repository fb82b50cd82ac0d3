// The cluster that Kubernetes manifests describe, read back into a project (`clab import
// PROJECT --k8s FILE`, the studio's import): from a TFJob, its replica specs (the number of
// each and the port of the "tfjob-port"), addressed as the training operator addresses
// them; from plain pods, the TF_CONFIG of each, checked against the others (one cluster,
// each task once) and against the headless Service that must give each pod its name and
// port. ClusterLab's annotations, where present, give the project's own addresses too.
#pragma once

#include "clab/core/Status.h"
#include "clab/distributed/ClusterSpec.h"

#include <string>

namespace clab::launch {

struct ImportedCluster {
  ClusterSpec cluster;          // as the tasks reach each other in Kubernetes
  ClusterSpec project_cluster;  // the project's addresses from the annotations (empty: none)
  std::string kind;             // "TFJob" or "Pod"
};

// `yaml_text`: one file's documents; `where` names it in errors, with the object at fault.
StatusOr<ImportedCluster> ImportKubernetes(const std::string& yaml_text, const std::string& where);

}  // namespace clab::launch
