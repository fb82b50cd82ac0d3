#include "launch/kubernetes/KubernetesExport.h"

#include "launch/kubernetes/KubernetesManifests.h"
#include "launch/kubernetes/KubernetesNames.h"
#include "launch/kubernetes/YamlDocuments.h"
#include "launch/project/TextFile.h"

#include <absl/strings/str_cat.h>

#include <filesystem>

namespace clab::launch {

StatusOr<KubernetesExportResult> ExportKubernetes(const ProjectFile& project, const std::string& dir,
                                                  const std::string& kinds) {
  if (kinds != "tfjob" && kinds != "pods" && kinds != "both")
    return errors::InvalidArgument("'", kinds, "' is not a kind of manifests (tfjob, pods or both)");
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return errors::Unavailable("cannot make ", dir, ": ", error.message());
  const std::string name = KubernetesNames::ObjectName(project);
  const std::string header = absl::StrCat("# ClusterLab project '", project.name, "' (", project.path, ")\n");
  KubernetesExportResult result;
  // A protected cluster's Secret in a file of its own, readable by its owner alone: the
  // pod manifests name it and hold no key material.
  CLAB_ASSIGN_OR_RETURN(const nlohmann::json secret, KubernetesManifests::TlsSecret(project));
  if (!secret.is_null()) {
    const std::string path = absl::StrCat(dir, "/", name, "-tls-secret.yaml");
    CLAB_RETURN_IF_ERROR(WriteTextFile(path,
                                       header +
                                           "# The cluster's CA certificate, every task's certificate and key and "
                                           "the cluster token: keep this file private, apply it first.\n" +
                                           WriteYamlDocuments({secret}),
                                       0600));
    result.files.push_back(path);
  }
  if (kinds != "pods") {
    auto tfjob = KubernetesManifests::TfJob(project);
    if (tfjob.ok()) {
      const std::string path = absl::StrCat(dir, "/", name, "-tfjob.yaml");
      CLAB_RETURN_IF_ERROR(
          WriteTextFile(path, header + "# Kubeflow TFJob: the training operator makes the pods and sets TF_CONFIG.\n" +
                                  WriteYamlDocuments(*tfjob)));
      result.files.push_back(path);
    } else if (kinds == "tfjob") {
      return tfjob.status();
    } else {
      result.notes.push_back(std::string(tfjob.status().message()));
    }
  }
  if (kinds != "tfjob") {
    CLAB_ASSIGN_OR_RETURN(const std::vector<nlohmann::json> plain, KubernetesManifests::Plain(project));
    const std::string path = absl::StrCat(dir, "/", name, "-pods.yaml");
    CLAB_RETURN_IF_ERROR(WriteTextFile(
        path, header + "# A headless Service and one Pod per task, each with its TF_CONFIG (no operator needed).\n" +
                  WriteYamlDocuments(plain)));
    result.files.push_back(path);
  }
  return result;
}

}  // namespace clab::launch
