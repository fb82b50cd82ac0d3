#include "launch/kubernetes/KubernetesManifests.h"

#include "clab/distributed/ClusterAccess.h"
#include "launch/kubernetes/KubernetesNames.h"
#include "launch/kubernetes/TaskContainer.h"
#include "launch/project/TextFile.h"
#include "launch/security/TaskCredentials.h"

#include <absl/strings/escaping.h>
#include <absl/strings/str_cat.h>

#include <map>
#include <set>

namespace clab::launch {
namespace {

nlohmann::json Labels(const std::string& object_name) {
  return {{KubernetesNames::kNameLabel, "clusterlab"}, {KubernetesNames::kInstanceLabel, object_name}};
}

nlohmann::json Metadata(const ProjectFile& project, const std::string& name, const std::string& object_name) {
  return {{"name", name},
          {"namespace", project.launch.kubernetes.name_space},
          {"labels", Labels(object_name)},
          {"annotations", {{KubernetesNames::kProjectAnnotation, project.name}}}};
}

// A pod's restart policy: Always, OnFailure or Never (a TFJob's ExitCode is its own).
std::string PodRestartPolicy(const std::string& policy) { return policy == "ExitCode" ? "OnFailure" : policy; }

}  // namespace

std::string KubernetesManifests::ReplicaType(const std::string& job) {
  static const std::map<std::string, std::string> types = {
      {"ps", "PS"}, {"worker", "Worker"}, {"chief", "Chief"}, {"evaluator", "Evaluator"}};
  auto it = types.find(job);
  return it == types.end() ? "" : it->second;
}

std::string KubernetesManifests::TlsSecretName(const ProjectFile& project) {
  return KubernetesNames::ObjectName(project) + "-tls";
}

StatusOr<nlohmann::json> KubernetesManifests::TlsSecret(const ProjectFile& project) {
  if (project.security.tls_dir.empty()) return nlohmann::json(nullptr);
  nlohmann::json data = nlohmann::json::object();
  for (const ProjectFile::Task& task : project.Tasks()) {
    CLAB_ASSIGN_OR_RETURN(const TaskCredentials credentials,
                          TaskCredentials::Find(project.security, task.job, task.index));
    for (const TaskCredentials::File& file : credentials.files) {
      if (data.contains(file.name)) continue;
      CLAB_ASSIGN_OR_RETURN(const std::string bytes, ReadTextFile(file.source));
      data[file.name] = absl::Base64Escape(bytes);
    }
  }
  const std::string name = TlsSecretName(project);
  return nlohmann::json{{"apiVersion", "v1"},
                        {"kind", "Secret"},
                        {"metadata", Metadata(project, name, KubernetesNames::ObjectName(project))},
                        {"type", "Opaque"},
                        {"data", data}};
}

StatusOr<std::vector<nlohmann::json>> KubernetesManifests::TfJob(const ProjectFile& project) {
  const KubernetesOptions& kubernetes = project.launch.kubernetes;
  const std::string name = KubernetesNames::ObjectName(project);
  std::vector<nlohmann::json> documents;
  const std::string graph_map = project.graph.empty() ? "" : name + "-graph";
  if (!graph_map.empty())
    documents.push_back(TaskContainer::GraphConfigMap(project, graph_map, Metadata(project, graph_map, name)));

  nlohmann::json replica_specs = nlohmann::json::object();
  for (const std::string& job : project.cluster.jobs()) {
    const std::string type = ReplicaType(job);
    if (type.empty())
      return errors::InvalidArgument(project.path,
                                     ": a TFJob has replicas of the types PS, Worker, Chief and Evaluator; "
                                     "the job '",
                                     job, "' is none of them (the plain manifests can run it)");
    // One port for the whole replica type: its first task's.
    const int port =
        HostPort::Parse(*project.cluster.TaskAddress(job, project.cluster.task_indices(job).front()))->port;
    TaskContainer::Spec spec;
    spec.job = job;
    spec.port = port;
    spec.container_name = "tensorflow";
    spec.port_name = "tfjob-port";
    spec.graph_config_map = graph_map;
    if (!project.security.tls_dir.empty()) {
      spec.tls_secret = TlsSecretName(project);
      for (int index : project.cluster.task_indices(job))
        spec.tls_cert_names.push_back(TaskCertificateName(job, index));
    }
    nlohmann::json pod_spec = {{"containers", {TaskContainer::Container(project, spec)}}};
    const nlohmann::json volumes = TaskContainer::Volumes(project, spec);
    if (!volumes.empty()) pod_spec["volumes"] = volumes;
    nlohmann::json labels = Labels(name);
    labels[KubernetesNames::kJobLabel] = KubernetesNames::DnsLabel(job);
    replica_specs[type] = {{"replicas", project.cluster.num_tasks(job)},
                           {"restartPolicy", kubernetes.restart_policy},
                           {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod_spec}}}};
  }
  nlohmann::json metadata = Metadata(project, name, name);
  metadata["annotations"][KubernetesNames::kClusterAnnotation] = project.cluster.ToInline();
  documents.push_back({{"apiVersion", "kubeflow.org/v1"},
                       {"kind", "TFJob"},
                       {"metadata", metadata},
                       {"spec", {{"runPolicy", {{"cleanPodPolicy", "Running"}}}, {"tfReplicaSpecs", replica_specs}}}});
  return documents;
}

StatusOr<std::vector<nlohmann::json>> KubernetesManifests::Plain(const ProjectFile& project) {
  const KubernetesOptions& kubernetes = project.launch.kubernetes;
  const std::string name = KubernetesNames::ObjectName(project);
  std::vector<nlohmann::json> documents;
  const std::string graph_map = project.graph.empty() ? "" : name + "-graph";
  if (!graph_map.empty())
    documents.push_back(TaskContainer::GraphConfigMap(project, graph_map, Metadata(project, graph_map, name)));

  // Every task's address in the cluster, for TF_CONFIG.
  std::map<std::string, std::vector<std::string>> cluster;
  std::set<int> ports;
  std::set<std::string> pods;
  for (const ProjectFile::Task& task : project.Tasks()) {
    const std::string pod = KubernetesNames::PodName(name, task.job, task.index);
    if (!pods.insert(pod).second)
      return errors::InvalidArgument(project.path, ": two tasks would both run in the pod '", pod,
                                     "' (job names that differ only in case or in '_')");
    cluster[task.job].push_back(KubernetesNames::ServiceAddress(pod + "." + name, kubernetes.name_space, task.port));
    ports.insert(task.port);
  }
  nlohmann::json cluster_json = cluster;

  nlohmann::json service_ports = nlohmann::json::array();
  for (int port : ports)
    service_ports.push_back(
        {{"name", absl::StrCat("grpc-", port)}, {"port", port}, {"targetPort", port}, {"protocol", "TCP"}});
  nlohmann::json service_metadata = Metadata(project, name, name);
  service_metadata["annotations"][KubernetesNames::kClusterAnnotation] = project.cluster.ToInline();
  documents.push_back({{"apiVersion", "v1"},
                       {"kind", "Service"},
                       {"metadata", service_metadata},
                       {"spec",
                        {{"clusterIP", "None"},
                         // Tasks find each other while they start, before anyone is "ready".
                         {"publishNotReadyAddresses", true},
                         {"selector", {{KubernetesNames::kInstanceLabel, name}}},
                         {"ports", service_ports}}}});

  for (const ProjectFile::Task& task : project.Tasks()) {
    const std::string pod = KubernetesNames::PodName(name, task.job, task.index);
    const nlohmann::json tf_config = {{"cluster", cluster_json}, {"task", {{"type", task.job}, {"index", task.index}}}};
    TaskContainer::Spec spec;
    spec.job = task.job;
    spec.index = task.index;
    spec.port = task.port;
    spec.tf_config = tf_config.dump();
    spec.graph_config_map = graph_map;
    if (!project.security.tls_dir.empty()) {
      spec.tls_secret = TlsSecretName(project);
      spec.tls_cert_names = {TaskCertificateName(task.job, task.index)};
    }
    nlohmann::json metadata = Metadata(project, pod, name);
    metadata["labels"][KubernetesNames::kJobLabel] = KubernetesNames::DnsLabel(task.job);
    metadata["labels"][KubernetesNames::kIndexLabel] = std::to_string(task.index);
    metadata["annotations"][KubernetesNames::kAddressAnnotation] = task.address();
    nlohmann::json pod_spec = {{"hostname", pod},
                               {"subdomain", name},
                               {"restartPolicy", PodRestartPolicy(kubernetes.restart_policy)},
                               {"containers", {TaskContainer::Container(project, spec)}}};
    const nlohmann::json volumes = TaskContainer::Volumes(project, spec);
    if (!volumes.empty()) pod_spec["volumes"] = volumes;
    documents.push_back({{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", pod_spec}});
  }
  return documents;
}

}  // namespace clab::launch
