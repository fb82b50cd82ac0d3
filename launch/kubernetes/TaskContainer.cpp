#include "launch/kubernetes/TaskContainer.h"

#include "launch/security/TaskCredentials.h"
#include "launch/task/TaskCommand.h"

#include <absl/strings/str_cat.h>

namespace clab::launch {
namespace {

// Where checkpoints go in the pod ("" : none).
std::string CheckpointDir(const ProjectFile& project) {
  const KubernetesOptions& kubernetes = project.launch.kubernetes;
  if (!kubernetes.checkpoint_claim.empty()) return kubernetes.checkpoint_path;
  return project.run.checkpoint_dir;
}

}  // namespace

nlohmann::json TaskContainer::Container(const ProjectFile& project, const Spec& spec) {
  const KubernetesOptions& kubernetes = project.launch.kubernetes;
  TaskCommandOptions command;
  command.job = spec.job;
  command.index = spec.index;  // the cluster comes from TF_CONFIG: no --cluster
  command.checkpoint_dir = CheckpointDir(project);
  if (!spec.graph_config_map.empty()) command.graph_path = absl::StrCat(kGraphMount, "/", kGraphFile);
  // The flags name files of the mounted Secret; no key or token is in the arguments.
  if (!spec.tls_secret.empty()) command.security = TaskCredentials::InDirectory(project.security, kTlsMount);
  nlohmann::json limits = {{"cpu", kubernetes.cpu}, {"memory", kubernetes.memory}};
  if (kubernetes.gpus > 0) limits["nvidia.com/gpu"] = kubernetes.gpus;
  nlohmann::json container = {
      {"name", spec.container_name},
      {"image", kubernetes.image},
      {"command", {kubernetes.binary}},
      {"args", TaskArguments(project, command)},
      {"ports", {{{"name", spec.port_name}, {"containerPort", spec.port}, {"protocol", "TCP"}}}},
      {"resources", {{"requests", {{"cpu", kubernetes.cpu}, {"memory", kubernetes.memory}}}, {"limits", limits}}}};
  if (!spec.tf_config.empty()) container["env"] = {{{"name", "TF_CONFIG"}, {"value", spec.tf_config}}};
  nlohmann::json mounts = nlohmann::json::array();
  if (!command.checkpoint_dir.empty())
    mounts.push_back({{"name", "checkpoints"}, {"mountPath", command.checkpoint_dir}});
  if (!spec.graph_config_map.empty())
    mounts.push_back({{"name", "graph"}, {"mountPath", kGraphMount}, {"readOnly", true}});
  if (!spec.tls_secret.empty()) mounts.push_back({{"name", "tls"}, {"mountPath", kTlsMount}, {"readOnly", true}});
  if (!mounts.empty()) container["volumeMounts"] = mounts;
  return container;
}

nlohmann::json TaskContainer::Volumes(const ProjectFile& project, const Spec& spec) {
  const KubernetesOptions& kubernetes = project.launch.kubernetes;
  nlohmann::json volumes = nlohmann::json::array();
  if (!kubernetes.checkpoint_claim.empty()) {
    volumes.push_back(
        {{"name", "checkpoints"}, {"persistentVolumeClaim", {{"claimName", kubernetes.checkpoint_claim}}}});
  } else if (!project.run.checkpoint_dir.empty()) {
    // Kept across restarts of the container within its pod, not beyond.
    volumes.push_back({{"name", "checkpoints"}, {"emptyDir", nlohmann::json::object()}});
  }
  if (!spec.graph_config_map.empty())
    volumes.push_back({{"name", "graph"}, {"configMap", {{"name", spec.graph_config_map}}}});
  if (!spec.tls_secret.empty()) {
    nlohmann::json items = nlohmann::json::array();
    items.push_back({{"key", "ca.crt"}, {"path", "ca.crt"}});
    items.push_back({{"key", TaskCredentials::kTokenName}, {"path", TaskCredentials::kTokenName}});
    for (const std::string& name : spec.tls_cert_names)
      for (const std::string& file : {name + ".crt", name + ".key"}) items.push_back({{"key", file}, {"path", file}});
    // Readable by the container's user alone (0400).
    volumes.push_back(
        {{"name", "tls"}, {"secret", {{"secretName", spec.tls_secret}, {"defaultMode", 0400}, {"items", items}}}});
  }
  return volumes;
}

nlohmann::json TaskContainer::GraphConfigMap(const ProjectFile& project, const std::string& name,
                                             const nlohmann::json& metadata) {
  if (project.graph.empty()) return nullptr;
  nlohmann::json meta = metadata;
  meta["name"] = name;
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", meta}, {"data", {{kGraphFile, project.graph}}}};
}

}  // namespace clab::launch
