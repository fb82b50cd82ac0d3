#include "commands/ExportCommand.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "launch/kubernetes/KubernetesExport.h"
#include "launch/kubernetes/KubernetesNames.h"
#include "launch/project/ProjectFile.h"

#include <ostream>

namespace clab::cli {

std::string ExportCommand::description() const {
  return "Writes into DIR, for 'kubectl apply -f DIR':\n"
         "  NAME-tfjob.yaml  a Kubeflow TFJob (kubeflow.org/v1): a PS and a Worker replica spec\n"
         "                   with the project's sizes, restart policy and pod template; the\n"
         "                   training operator makes the pods and sets their TF_CONFIG;\n"
         "  NAME-pods.yaml   without the operator: one headless Service and one Pod per task,\n"
         "                   each with its TF_CONFIG.\n"
         "The image, resources, checkpoint volume and restart policy come from the project's\n"
         "launch.kubernetes settings, the ports from its cluster. A ps ends once the workers\n"
         "are done. Watch a task from here with 'kubectl port-forward pod/NAME-worker-0 PORT'\n"
         "and 'clab watch 127.0.0.1:PORT' (the studio's Run > Attach through port-forward does\n"
         "both). 'clab import PROJECT --k8s FILE' reads a cluster back.\n\n"
         "Example:  clab export examples/projects/digits-mlp.clab --k8s k8s/";
}

void ExportCommand::DeclareFlags(FlagParser& flags) {
  flags.AddPositional("PROJECT", "a .clab project", &project_);
  flags.AddString("k8s", "DIR", "write Kubernetes manifests into DIR", &k8s_dir_, FlagParser::Presence::kRequired);
  flags.AddString("kind", "KIND", "both, tfjob or pods", &kind_);
}

Status ExportCommand::Run(std::ostream& out) {
  if (kind_ != "both" && kind_ != "tfjob" && kind_ != "pods")
    return UsageError("--kind '" + kind_ + "' is not both, tfjob or pods");
  CLAB_ASSIGN_OR_RETURN(const launch::ProjectFile project, launch::ProjectFile::Read(project_));
  CLAB_ASSIGN_OR_RETURN(const launch::KubernetesExportResult result,
                        launch::ExportKubernetes(project, k8s_dir_, kind_));
  for (const std::string& file : result.files) out << "Wrote " << file << "\n";
  for (const std::string& note : result.notes) out << "Left out: " << note << "\n";
  out << "Apply with: kubectl apply -f " << (result.files.empty() ? k8s_dir_ : result.files.back()) << "   (namespace "
      << project.launch.kubernetes.name_space << ", objects " << launch::KubernetesNames::ObjectName(project) << "-*)"
      << std::endl;
  return OkStatus();
}

}  // namespace clab::cli
