#include "commands/SlurmTaskCommand.h"

#include "clab/distributed/ClusterAccess.h"
#include "cli/FlagParser.h"
#include "launch/process/ChildProcess.h"
#include "launch/project/ProjectFile.h"
#include "launch/security/TaskCredentials.h"
#include "launch/slurm/SlurmClusterResolver.h"
#include "launch/task/TaskCommand.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>

namespace clab::cli {

std::string SlurmTaskCommand::description() const {
  return "Run by 'clab launch --via slurm' in every task of its job step (srun): reads SLURM's\n"
         "environment as 'clab slurm spec --project PROJECT' does, checks that the address its\n"
         "rank gets is on the node it runs on, prints which task it is, and then runs that\n"
         "task's command line (the process becomes it, so that SLURM's signals reach it).";
}

void SlurmTaskCommand::DeclareFlags(FlagParser& flags) {
  flags.AddPositional("PROJECT", "the project (as the nodes see it)", &project_);
  flags.AddString("tls_root", "DIR",
                  "a protected cluster: each task runs with --tls_dir DIR/JOB-INDEX and --token_file "
                  "DIR/JOB-INDEX/cluster.token (clab launch --via slurm puts each task's credentials there)",
                  &tls_root_);
  flags.AddInt("port_base", "PORT", "the first port on each node (default: the project's launch.slurm.port_base)",
               &port_base_, 0, 65535);
}

Status SlurmTaskCommand::Run(std::ostream& out) {
  CLAB_ASSIGN_OR_RETURN(const launch::ProjectFile project, launch::ProjectFile::Read(project_));
  launch::SlurmClusterResolver::Options options;
  options.jobs = launch::SlurmClusterResolver::JobSizes(project.cluster);
  options.port_base = port_base_ > 0 ? static_cast<int>(port_base_) : project.launch.slurm.port_base;
  CLAB_ASSIGN_OR_RETURN(const launch::SlurmEnvironment environment,
                        launch::SlurmEnvironment::Read([](const char* name) { return std::getenv(name); }));
  if (!environment.rank) return errors::FailedPrecondition("SLURM_PROCID is not set: run this in a job step (srun)");
  CLAB_ASSIGN_OR_RETURN(const launch::SlurmClusterResolver::Resolved resolved,
                        launch::SlurmClusterResolver::Resolve(options, environment));
  CLAB_ASSIGN_OR_RETURN(const HostPort address, HostPort::Parse(resolved.address));
  // TensorFlow trusts the rank order to match where the ranks run; a mismatch would put a
  // server on an address of another node.
  if (!environment.node_name.empty() && address.host != environment.node_name)
    return errors::FailedPrecondition("rank ", *environment.rank, " would listen at ", resolved.address,
                                      " but runs on ", environment.node_name,
                                      ": the step's tasks are not laid out node by node (srun --distribution=block)");

  launch::TaskCommandOptions command;
  command.cluster = resolved.cluster.ToInline();
  command.job = resolved.task_type;
  command.index = resolved.task_index;
  command.checkpoint_dir = project.run.checkpoint_dir;
  if (!tls_root_.empty())
    command.security = launch::TaskCredentials::InDirectory(
        project.security, absl::StrCat(tls_root_, "/", TaskCertificateName(resolved.task_type, resolved.task_index)));
  if (!project.graph.empty())
    command.graph_path = (std::filesystem::path(project_).parent_path() / (project.Stem() + ".graph.pbtxt")).string();
  const std::vector<std::string> args = launch::TaskArguments(project, command);
  out << "clab slurm task: rank " << *environment.rank << " is /job:" << resolved.task_type
      << "/replica:0/task:" << resolved.task_index << " at " << resolved.address << " in " << command.cluster
      << std::endl;
  if (!resolved.cuda_visible_devices.empty())
    ::setenv("CUDA_VISIBLE_DEVICES", resolved.cuda_visible_devices.c_str(), 1);

  const std::string self = launch::ChildProcess::SelfPath();
  std::vector<char*> argv{const_cast<char*>(self.c_str())};
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  ::execv(self.c_str(), argv.data());
  return errors::FailedPrecondition("cannot run ", self, " ", absl::StrJoin(args, " "), ": ", std::strerror(errno));
}

}  // namespace clab::cli
