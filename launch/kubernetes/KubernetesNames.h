// The names a project's objects get in Kubernetes, shared by the TFJob, the plain pods, the
// import and the studio's port forwarding: the object name is "clab-" and the project's
// stem as a DNS label; task i of job j runs in the pod "<name>-<j>-<i>" in both kinds (the
// TFJob operator names its pods so). In the cluster a plain pod is reached through the
// headless service as "<pod>.<service>.<namespace>.svc", a TFJob's through the service the
// operator makes for each replica as "<pod>.<namespace>.svc".
#pragma once

#include "launch/project/ProjectFile.h"

#include <string>

namespace clab::launch {

class KubernetesNames {
 public:
  // Lower-case letters, digits and '-', starting and ending with a letter or digit, at
  // most `max_length` long ("Digits_MLP v2" -> "digits-mlp-v2").
  static std::string DnsLabel(const std::string& text, size_t max_length = 63);
  // "clab-digits-mlp"; short enough that "<name>-worker-99" stays a label.
  static std::string ObjectName(const ProjectFile& project);
  static std::string PodName(const std::string& object_name, const std::string& job, int index);
  // "<dns_name>.<namespace>.svc:<port>": dns_name is "pod.service" for a plain pod,
  // "pod" for a TFJob's.
  static std::string ServiceAddress(const std::string& dns_name, const std::string& name_space, int port);

  // Label and annotation keys ClusterLab puts on its objects.
  static constexpr const char* kInstanceLabel = "app.kubernetes.io/instance";
  static constexpr const char* kNameLabel = "app.kubernetes.io/name";
  static constexpr const char* kJobLabel = "clusterlab.io/job";
  static constexpr const char* kIndexLabel = "clusterlab.io/task-index";
  // The project's own addresses, so that an import gives back the same cluster.
  static constexpr const char* kClusterAnnotation = "clusterlab.io/cluster";
  static constexpr const char* kAddressAnnotation = "clusterlab.io/address";
  static constexpr const char* kProjectAnnotation = "clusterlab.io/project";
};

}  // namespace clab::launch
