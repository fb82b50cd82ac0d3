// What the Kubernetes manifests of a project say (the "kubernetes" member of its "launch"
// section):
//
//   "kubernetes": {"image": "registry.lab/clusterlab:0.1", "namespace": "ml", "binary": "clab",
//                  "cpu": "2", "memory": "2Gi", "gpus": 0, "checkpoint_claim": "clab-ckpt",
//                  "checkpoint_path": "/checkpoints", "restart_policy": "OnFailure"}
//
// The image must hold ClusterLab (`binary` on its PATH). checkpoint_claim names a
// PersistentVolumeClaim mounted at checkpoint_path in every pod; the chief writes its
// checkpoints there. restart_policy is a TFJob replica's: Always, OnFailure, Never or
// ExitCode (plain pods get ExitCode's nearest, OnFailure).
#pragma once

#include "clab/core/Status.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace clab::launch {

struct KubernetesOptions {
  std::string image = "clusterlab:latest";
  std::string name_space = "default";  // "namespace" in JSON
  std::string binary = "clab";
  std::string cpu = "1";
  std::string memory = "1Gi";
  int gpus = 0;  // nvidia.com/gpu per pod
  std::string checkpoint_claim;
  std::string checkpoint_path = "/checkpoints";
  std::string restart_policy = "OnFailure";

  static StatusOr<KubernetesOptions> FromJson(const nlohmann::json& json, const std::string& where);
  nlohmann::json ToJson() const;
  bool operator==(const KubernetesOptions&) const = default;
};

}  // namespace clab::launch
