// A project's cluster as Kubernetes objects, in two kinds:
//
// - a Kubeflow TFJob (kubeflow.org/v1): one replica spec per job (PS, Worker; also Chief and
//   Evaluator), each with its number of replicas, the project's restart policy and a pod
//   template; the training operator makes the pods and a service for each, and sets every
//   pod's TF_CONFIG. Its container is "tensorflow" with the port "tfjob-port", as the
//   operator expects. Cleaning up the ps pods when the job succeeds is left to the
//   operator (cleanPodPolicy Running).
// - plain objects for a cluster without the operator: one headless Service over all the
//   tasks and one Pod per task (hostname and subdomain, so that each has a stable DNS
//   name), each with its own TF_CONFIG.
//
// Both carry the project's own addresses in annotations, so that importing them gives the
// project's cluster back. A project with a graph of its own adds a ConfigMap holding it; a
// protected one (security.tls_dir) mounts a Secret (TlsSecret) read-only in every pod, each
// plain pod seeing only its own task's key, and its tasks' flags name the mounted files.
#pragma once

#include "clab/core/Status.h"
#include "launch/project/ProjectFile.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace clab::launch {

class KubernetesManifests {
 public:
  // INVALID_ARGUMENT for a job a TFJob has no replica type for.
  static StatusOr<std::vector<nlohmann::json>> TfJob(const ProjectFile& project);
  static StatusOr<std::vector<nlohmann::json>> Plain(const ProjectFile& project);
  // The TFJob replica type of a job ("ps" -> "PS"); "" when there is none.
  static std::string ReplicaType(const std::string& job);
  // A protected cluster (security.tls_dir set): the Secret the pods mount their
  // credentials from, read from the project's security folder on this machine: data keys
  // ca.crt, cluster.token and JOB-INDEX.crt/.key for every task. Null without TLS;
  // NOT_FOUND naming a missing file.
  static StatusOr<nlohmann::json> TlsSecret(const ProjectFile& project);
  // The Secret's name: "<object name>-tls".
  static std::string TlsSecretName(const ProjectFile& project);
};

}  // namespace clab::launch
