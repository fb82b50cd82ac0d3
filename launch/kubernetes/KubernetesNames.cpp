#include "launch/kubernetes/KubernetesNames.h"

#include <absl/strings/ascii.h>
#include <absl/strings/str_cat.h>

namespace clab::launch {

std::string KubernetesNames::DnsLabel(const std::string& text, size_t max_length) {
  std::string label;
  for (char c : text) {
    const char lower = absl::ascii_tolower(static_cast<unsigned char>(c));
    if (absl::ascii_isalnum(static_cast<unsigned char>(lower))) {
      label += lower;
    } else if (!label.empty() && label.back() != '-') {
      label += '-';
    }
  }
  if (label.size() > max_length) label.resize(max_length);
  while (!label.empty() && label.back() == '-') label.pop_back();
  return label.empty() ? "x" : label;
}

std::string KubernetesNames::ObjectName(const ProjectFile& project) {
  // 63 minus room for "-worker-999" and the TFJob operator's own suffixes.
  return "clab-" + DnsLabel(project.Stem(), 40);
}

std::string KubernetesNames::PodName(const std::string& object_name, const std::string& job, int index) {
  return absl::StrCat(object_name, "-", DnsLabel(job, 20), "-", index);
}

std::string KubernetesNames::ServiceAddress(const std::string& dns_name, const std::string& name_space, int port) {
  return absl::StrCat(dns_name, ".", name_space, ".svc:", port);
}

}  // namespace clab::launch
