// The container that runs one task of a project in a pod, and the pod's volumes, as both
// the TFJob's replica templates and the plain pods use them: the project's image running
// the task's ClusterLab command line (TaskArguments), its port, the resources the project
// asks for, the checkpoint volume (a PersistentVolumeClaim, or an emptyDir for a run's
// checkpoint directory), for a project with its own graph, that graph from a ConfigMap, and
// for a protected cluster the credentials from a Secret (KubernetesManifests::TlsSecret).
#pragma once

#include "launch/project/ProjectFile.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace clab::launch {

class TaskContainer {
 public:
  struct Spec {
    std::string job;
    int index = -1;  // -1: from TF_CONFIG, which the TFJob operator sets
    int port = 0;
    std::string container_name = "clusterlab";
    std::string port_name = "grpc";
    std::string tf_config;         // "" : none set here
    std::string graph_config_map;  // "" : the project has no graph of its own
    // A protected cluster: the Secret holding the credentials, and the tasks whose
    // certificate and key this pod may see (its own; a TFJob's replicas share one
    // template, so there every task of the job). The Secret is mounted read-only at
    // kTlsMount with only those keys, the CA and the token.
    std::string tls_secret;
    std::vector<std::string> tls_cert_names;
  };

  static nlohmann::json Container(const ProjectFile& project, const Spec& spec);
  static nlohmann::json Volumes(const ProjectFile& project, const Spec& spec);
  // The ConfigMap holding the project's graph (null when it has none).
  static nlohmann::json GraphConfigMap(const ProjectFile& project, const std::string& name,
                                       const nlohmann::json& metadata);

  static constexpr const char* kGraphMount = "/etc/clusterlab";
  static constexpr const char* kGraphFile = "graph.pbtxt";
  static constexpr const char* kTlsMount = "/etc/clusterlab-tls";
};

}  // namespace clab::launch
