#include "commands/ImportCommand.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "launch/kubernetes/KubernetesImport.h"
#include "launch/project/ProjectFile.h"
#include "launch/project/TextFile.h"

#include <ostream>

namespace clab::cli {

std::string ImportCommand::description() const {
  return "Reads FILE (YAML; what 'clab export --k8s' wrote, or manifests written by hand) and\n"
         "replaces the cluster of PROJECT with the one it describes: from a TFJob, its replica\n"
         "specs as the training operator addresses them; from Pods, their TF_CONFIG (one\n"
         "cluster, each task once, each pod named by a headless Service that exposes its port).\n"
         "--addresses project (the default) takes the addresses ClusterLab noted when it\n"
         "exported the manifests, where there are such notes; --addresses kubernetes takes the\n"
         "addresses the tasks have inside Kubernetes.\n\n"
         "Example:  clab import digits.clab --k8s k8s/clab-digits-mlp-pods.yaml";
}

void ImportCommand::DeclareFlags(FlagParser& flags) {
  flags.AddPositional("PROJECT", "the .clab project to change", &project_);
  flags.AddString("k8s", "FILE", "the manifests", &k8s_file_, FlagParser::Presence::kRequired);
  flags.AddString("addresses", "WHICH", "project or kubernetes", &addresses_);
}

Status ImportCommand::Run(std::ostream& out) {
  if (addresses_ != "project" && addresses_ != "kubernetes")
    return UsageError("--addresses '" + addresses_ + "' is not project or kubernetes");
  CLAB_ASSIGN_OR_RETURN(const std::string text, launch::ReadTextFile(k8s_file_));
  CLAB_ASSIGN_OR_RETURN(const launch::ImportedCluster imported, launch::ImportKubernetes(text, k8s_file_));
  const bool use_project = addresses_ == "project" && !imported.project_cluster.empty();
  const ClusterSpec& cluster = use_project ? imported.project_cluster : imported.cluster;
  CLAB_RETURN_IF_ERROR(launch::WriteProjectCluster(project_, cluster));
  out << "The cluster of " << project_ << " is now " << cluster.ToInline() << "\n(from the " << imported.kind
      << (use_project ? " manifests' notes of the project's addresses)" : " manifests' addresses in Kubernetes)")
      << std::endl;
  return OkStatus();
}

}  // namespace clab::cli
