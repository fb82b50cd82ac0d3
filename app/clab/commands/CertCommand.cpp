#include "commands/CertCommand.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "launch/project/ProjectFile.h"
#include "launch/security/ClusterCertificates.h"

#include <absl/strings/str_cat.h>

#include <ostream>

namespace clab::cli {

std::string CertCommand::description() const {
  return "Makes what a protected cluster needs into one folder: a cluster CA (ca.key, ca.crt; an\n"
         "existing CA in the folder is reused), a key and certificate per task signed by the CA\n"
         "with the task's host as subjectAltName (JOB-INDEX.key/.crt), a client certificate for\n"
         "clab watch and the studio (client.key/.crt), and a random cluster token (cluster.token,\n"
         "kept if present). Keys and the token are readable by their owner only. Tasks then run\n"
         "with --tls_dir DIR --token_file DIR/cluster.token. With the project's security section\n"
         "naming DIR, clab launch (ssh, slurm) and clab export --k8s put ca.crt, each task's own\n"
         "files and the token where the task runs; keep ca.key where certificates are made.\n\n"
         "Examples:\n"
         "  clab cert --out certs --cluster 'ps=10.0.0.1:2222;worker=10.0.0.2:2222,node-3:2222'\n"
         "  clab cert --out certs --project examples/projects/seed.clab";
}

void CertCommand::DeclareFlags(FlagParser& flags) {
  flags.AddString("out", "DIR", "the folder for the certificates (made if missing)", &out_);
  flags.AddString("cluster", "SPEC", "the cluster: 'ps=HOST:PORT;worker=HOST:PORT,...', JSON text or a JSON file",
                  &cluster_);
  flags.AddString("project", "FILE", "take the cluster from this project (.clab) instead", &project_);
  flags.AddInt("days", "N", "how long the task and client certificates are valid (default 825)", &days_, 1, 36500);
}

Status CertCommand::Run(std::ostream& out) {
  if (out_.empty()) return UsageError("--out: give the folder for the certificates");
  if (cluster_.empty() == project_.empty()) return UsageError("give the cluster with either --cluster or --project");
  launch::ClusterCertificateOptions options;
  options.dir = out_;
  options.days = static_cast<int>(days_);
  if (!cluster_.empty()) {
    auto cluster = ClusterSpec::Parse(cluster_);
    if (!cluster.ok()) return UsageError(absl::StrCat("--cluster: ", cluster.status().message()));
    options.cluster = *std::move(cluster);
  } else {
    CLAB_ASSIGN_OR_RETURN(const launch::ProjectFile project, launch::ProjectFile::Read(project_));
    options.cluster = project.cluster;
  }
  CLAB_ASSIGN_OR_RETURN(const launch::ClusterCertificateReport report, launch::MakeClusterCertificates(options));
  out << (report.ca_created ? "Made a new cluster CA in " : "Reused the cluster CA in ") << out_ << "\n";
  for (const std::string& path : report.written) out << "  wrote " << path << "\n";
  if (!report.token_created) out << "  kept " << out_ << "/cluster.token\n";
  out << "Run each task with --tls_dir " << out_ << " --token_file " << out_ << "/cluster.token" << std::endl;
  return OkStatus();
}

}  // namespace clab::cli
