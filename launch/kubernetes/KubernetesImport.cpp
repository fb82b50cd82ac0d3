#include "launch/kubernetes/KubernetesImport.h"

#include "launch/kubernetes/KubernetesNames.h"
#include "launch/kubernetes/YamlDocuments.h"

#include <absl/strings/ascii.h>
#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>

#include <map>
#include <set>

namespace clab::launch {
namespace {

using Json = nlohmann::json;

// The member at `path` ("spec.containers"), or null.
const Json* At(const Json& object, std::initializer_list<const char*> path) {
  const Json* node = &object;
  for (const char* key : path) {
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
  }
  return node;
}

std::string Text(const Json& object, std::initializer_list<const char*> path) {
  const Json* node = At(object, path);
  return node && node->is_string() ? node->get<std::string>() : "";
}

// `node` as a whole number in [minimum, maximum] (`fallback` when absent); an error names
// the field and the document. Read at full width so that 4294967296 is not taken for 0.
StatusOr<int> BoundedInt(const Json* node, const std::string& what, std::string_view field, int minimum, int maximum,
                         int fallback) {
  if (node == nullptr) return fallback;
  const bool fits = node->is_number_unsigned()  ? node->get<uint64_t>() <= static_cast<uint64_t>(maximum)
                    : node->is_number_integer() ? node->get<int64_t>() >= minimum && node->get<int64_t>() <= maximum
                                                : false;
  if (!fits)
    return errors::InvalidArgument(what, ": ", field, " is ", node->dump(), ", not a whole number from ", minimum,
                                   " to ", maximum);
  return node->get<int>();
}

std::string Describe(const Json& document, size_t index) {
  return absl::StrCat("document ", index + 1, " (", Text(document, {"kind"}), " '",
                      Text(document, {"metadata", "name"}), "')");
}

StatusOr<ClusterSpec> AnnotatedCluster(const Json& metadata_owner) {
  const std::string inline_spec =
      Text(metadata_owner, {"metadata", "annotations", KubernetesNames::kClusterAnnotation});
  if (inline_spec.empty()) return ClusterSpec();
  return ClusterSpec::Parse(inline_spec);
}

StatusOr<ImportedCluster> FromTfJob(const Json& tfjob, const std::string& what) {
  const std::string name = Text(tfjob, {"metadata", "name"});
  std::string name_space = Text(tfjob, {"metadata", "namespace"});
  if (name_space.empty()) name_space = "default";
  const Json* specs = At(tfjob, {"spec", "tfReplicaSpecs"});
  if (name.empty() || specs == nullptr || !specs->is_object() || specs->empty())
    return errors::InvalidArgument(what, ": a TFJob needs metadata.name and spec.tfReplicaSpecs");
  std::map<std::string, std::vector<std::string>> jobs;
  for (const auto& [type, spec] : specs->items()) {
    const std::string job = absl::AsciiStrToLower(type);
    CLAB_ASSIGN_OR_RETURN(const int count, BoundedInt(At(spec, {"replicas"}), what,
                                                      absl::StrCat("tfReplicaSpecs.", type, ".replicas"), 0, 10000, 1));
    int port = 2222;  // the operator's default
    if (const Json* containers = At(spec, {"template", "spec", "containers"}); containers && containers->is_array()) {
      for (const Json& container : *containers) {
        if (Text(container, {"name"}) != "tensorflow") continue;
        if (const Json* ports = At(container, {"ports"}); ports && ports->is_array())
          for (const Json& entry : *ports)
            if (Text(entry, {"name"}) == "tfjob-port" && At(entry, {"containerPort"})) {
              CLAB_ASSIGN_OR_RETURN(port,
                                    BoundedInt(At(entry, {"containerPort"}), what, "containerPort", 1, 65535, port));
            }
      }
    }
    for (int i = 0; i < count; ++i)
      jobs[job].push_back(KubernetesNames::ServiceAddress(absl::StrCat(name, "-", job, "-", i), name_space, port));
  }
  ImportedCluster imported;
  imported.kind = "TFJob";
  auto cluster = ClusterSpec::FromDict(jobs);
  if (!cluster.ok()) return errors::InvalidArgument(what, ": ", cluster.status().message());
  imported.cluster = *std::move(cluster);
  auto annotated = AnnotatedCluster(tfjob);
  if (!annotated.ok())
    return errors::InvalidArgument(what, ": annotation ", KubernetesNames::kClusterAnnotation, ": ",
                                   annotated.status().message());
  imported.project_cluster = *std::move(annotated);
  return imported;
}

struct ServiceInfo {
  bool headless = false;
  Json selector;
  std::set<int> ports;
};

bool Selects(const Json& selector, const Json& labels) {
  if (!selector.is_object() || selector.empty()) return false;
  for (const auto& [key, value] : selector.items())
    if (!labels.is_object() || !labels.contains(key) || labels[key] != value) return false;
  return true;
}

StatusOr<ImportedCluster> FromPods(const std::vector<Json>& documents, const std::string& where) {
  std::map<std::string, ServiceInfo> services;
  for (const Json& document : documents) {
    if (Text(document, {"kind"}) != "Service") continue;
    ServiceInfo info;
    info.headless = Text(document, {"spec", "clusterIP"}) == "None";
    if (const Json* selector = At(document, {"spec", "selector"})) info.selector = *selector;
    if (const Json* ports = At(document, {"spec", "ports"}); ports && ports->is_array())
      for (const Json& port : *ports)
        if (const Json* number = At(port, {"port"}); number && number->is_number_integer()) {
          CLAB_ASSIGN_OR_RETURN(const int value, BoundedInt(number, where, "spec.ports.port", 1, 65535, 0));
          info.ports.insert(value);
        }
    services[Text(document, {"metadata", "name"})] = info;
  }

  ImportedCluster imported;
  imported.kind = "Pod";
  std::optional<ClusterSpec> cluster;
  std::set<std::pair<std::string, int>> seen;
  std::map<std::string, std::map<int, std::string>> project_jobs;
  size_t annotated = 0, pods = 0;
  for (size_t i = 0; i < documents.size(); ++i) {
    const Json& pod = documents[i];
    if (Text(pod, {"kind"}) != "Pod") continue;
    ++pods;
    const std::string what = absl::StrCat(where, ": ", Describe(pod, i));
    std::string tf_config_text;
    if (const Json* containers = At(pod, {"spec", "containers"}); containers && containers->is_array())
      for (const Json& container : *containers)
        if (const Json* env = At(container, {"env"}); env && env->is_array())
          for (const Json& variable : *env)
            if (Text(variable, {"name"}) == "TF_CONFIG") tf_config_text = Text(variable, {"value"});
    if (tf_config_text.empty()) return errors::InvalidArgument(what, ": no container sets TF_CONFIG");
    auto config = TfConfig::Parse(tf_config_text);
    if (!config.ok()) return errors::InvalidArgument(what, ": TF_CONFIG: ", config.status().message());
    if (!cluster) {
      cluster = config->cluster;
    } else if (!(*cluster == config->cluster)) {
      return errors::InvalidArgument(what, ": its TF_CONFIG describes another cluster than the pods before it");
    }
    if (!seen.insert({config->task_type, config->task_index}).second)
      return errors::InvalidArgument(what, ": /job:", config->task_type, "/task:", config->task_index,
                                     " is already the task of another pod");
    // The task's address must be this pod's name under a headless service that exposes its port.
    CLAB_ASSIGN_OR_RETURN(const std::string address,
                          config->cluster.TaskAddress(config->task_type, config->task_index));
    CLAB_ASSIGN_OR_RETURN(const HostPort host_port, HostPort::Parse(address));
    const std::string dns_name =
        absl::StrCat(Text(pod, {"spec", "hostname"}), ".", Text(pod, {"spec", "subdomain"}), ".");
    if (!absl::StartsWith(host_port.host, dns_name))
      return errors::InvalidArgument(what, ": its task's address ", address, " is not the pod's own name (", dns_name,
                                     "...)");
    auto service = services.find(Text(pod, {"spec", "subdomain"}));
    if (service == services.end())
      return errors::InvalidArgument(what, ": no Service '", Text(pod, {"spec", "subdomain"}),
                                     "' gives the pod its name");
    const Json* labels = At(pod, {"metadata", "labels"});
    if (!service->second.headless || !Selects(service->second.selector, labels ? *labels : Json()) ||
        service->second.ports.count(host_port.port) == 0)
      return errors::InvalidArgument(what, ": the Service '", service->first,
                                     "' must be headless (clusterIP: None), select the pod and expose port ",
                                     host_port.port);
    const std::string project_address = Text(pod, {"metadata", "annotations", KubernetesNames::kAddressAnnotation});
    if (!project_address.empty()) {
      ++annotated;
      project_jobs[config->task_type][config->task_index] = project_address;
    }
  }
  if (!cluster) return errors::InvalidArgument(where, ": neither a TFJob nor a Pod with TF_CONFIG");
  for (const auto& [job, addresses] : cluster->all_jobs())
    for (const auto& [index, address] : addresses)
      if (seen.count({job, index}) == 0)
        return errors::InvalidArgument(where, ": no pod runs /job:", job, "/task:", index, " (", address, ")");
  imported.cluster = *cluster;
  if (annotated == pods) {
    auto project_cluster = ClusterSpec::FromJobs(project_jobs);
    if (!project_cluster.ok())
      return errors::InvalidArgument(where, ": the annotations ", KubernetesNames::kAddressAnnotation, ": ",
                                     project_cluster.status().message());
    imported.project_cluster = *std::move(project_cluster);
  }
  return imported;
}

}  // namespace

StatusOr<ImportedCluster> ImportKubernetes(const std::string& yaml_text, const std::string& where) {
  CLAB_ASSIGN_OR_RETURN(const std::vector<Json> documents, ReadYamlDocuments(yaml_text, where));
  for (size_t i = 0; i < documents.size(); ++i) {
    if (!documents[i].is_object()) return errors::InvalidArgument(where, ": document ", i + 1, " is not an object");
    if (Text(documents[i], {"kind"}) == "TFJob")
      return FromTfJob(documents[i], absl::StrCat(where, ": ", Describe(documents[i], i)));
  }
  return FromPods(documents, where);
}

}  // namespace clab::launch
