#include "launch/kubernetes/KubernetesOptions.h"

#include "launch/project/JsonFields.h"

#include <regex>

namespace clab::launch {

StatusOr<KubernetesOptions> KubernetesOptions::FromJson(const nlohmann::json& json, const std::string& where) {
  JsonFields fields(json, where);
  CLAB_RETURN_IF_ERROR(fields.CheckObject());
  KubernetesOptions options;
  CLAB_RETURN_IF_ERROR(fields.String("image", &options.image));
  CLAB_RETURN_IF_ERROR(fields.String("namespace", &options.name_space));
  CLAB_RETURN_IF_ERROR(fields.String("binary", &options.binary));
  CLAB_RETURN_IF_ERROR(fields.String("cpu", &options.cpu));
  CLAB_RETURN_IF_ERROR(fields.String("memory", &options.memory));
  CLAB_RETURN_IF_ERROR(fields.Int("gpus", &options.gpus, 0, 64));
  CLAB_RETURN_IF_ERROR(fields.String("checkpoint_claim", &options.checkpoint_claim));
  CLAB_RETURN_IF_ERROR(fields.String("checkpoint_path", &options.checkpoint_path));
  CLAB_RETURN_IF_ERROR(
      fields.Choice("restart_policy", {"Always", "OnFailure", "Never", "ExitCode"}, &options.restart_policy));
  CLAB_RETURN_IF_ERROR(fields.CheckNoOthers());
  if (options.image.empty()) return errors::InvalidArgument(fields.PathOf("image"), ": wants an image name");
  // A namespace is a DNS label (RFC 1123): the API server refuses anything else.
  static const std::regex label("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  if (!std::regex_match(options.name_space, label))
    return errors::InvalidArgument(fields.PathOf("namespace"), ": '", options.name_space,
                                   "' is not a DNS label (lower-case letters, digits and '-', at most 63)");
  // Resource quantities as the API server reads them: "500m", "2", "1.5Gi", "1e3".
  static const std::regex quantity(
      R"(^[+-]?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)");
  for (const auto& [name, value] :
       {std::pair<const char*, const std::string*>{"cpu", &options.cpu}, {"memory", &options.memory}})
    if (!std::regex_match(*value, quantity))
      return errors::InvalidArgument(fields.PathOf(name), ": '", *value,
                                     "' is not a Kubernetes quantity (like 500m, 2, 1Gi)");
  if (options.checkpoint_path.empty() || options.checkpoint_path[0] != '/')
    return errors::InvalidArgument(fields.PathOf("checkpoint_path"), ": wants an absolute path in the pod");
  return options;
}

nlohmann::json KubernetesOptions::ToJson() const {
  return {{"image", image},
          {"namespace", name_space},
          {"binary", binary},
          {"cpu", cpu},
          {"memory", memory},
          {"gpus", gpus},
          {"checkpoint_claim", checkpoint_claim},
          {"checkpoint_path", checkpoint_path},
          {"restart_policy", restart_policy}};
}

}  // namespace clab::launch
