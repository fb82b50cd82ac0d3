#include "commands/TrainCommand.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "cli/LocalTasks.h"
#include "cli/LoopbackPorts.h"
#include "models/TrainProgram.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <ostream>

namespace clab::cli {
namespace {

struct ProjectRun {
  std::string program;
  int ps = 0;
  int workers = 0;
  int64_t last_step = 0;
  std::string checkpoint_dir;
};

StatusOr<ProjectRun> ReadProject(const std::string& path) {
  std::ifstream file(path);
  if (!file) return errors::NotFound("cannot read '", path, "'");
  nlohmann::json json = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return errors::InvalidArgument(path, ": not a JSON object");
  if (json.value("format", "") != "clusterlab-project")
    return errors::InvalidArgument(path, ": format: not a ClusterLab project");
  ProjectRun run;
  run.program = json.value("program", "seed");
  const auto& cluster = json["cluster"];
  if (!cluster.is_object()) return errors::InvalidArgument(path, ": cluster: missing");
  if (cluster.contains("ps") && cluster["ps"].is_array()) run.ps = static_cast<int>(cluster["ps"].size());
  if (cluster.contains("worker") && cluster["worker"].is_array()) run.workers = static_cast<int>(cluster["worker"].size());
  const auto& settings = json.contains("run") ? json["run"] : nlohmann::json::object();
  run.last_step = settings.value("last_step", int64_t{3000});
  run.checkpoint_dir = settings.value("checkpoint_dir", "");
  return run;
}

}  // namespace

std::string TrainCommand::description() const {
  return "Reads a .clab project whose program is a training model (digits-mlp, iris-softmax),\n"
         "starts its ps and worker tasks as processes on free 127.0.0.1 ports ('clab example\n"
         "train'), prints every task's output with its label, and ends with each worker's\n"
         "held-out accuracy. --workers and --ps change the cluster's size; the run settings\n"
         "(last step, checkpoint directory) come from the project unless given.\n\n"
         "Example:  clab train examples/projects/digits-mlp.clab --workers 2";
}

void TrainCommand::DeclareFlags(FlagParser& flags) {
  flags.AddPositional("PROJECT", "a .clab project", &project_);
  flags.AddInt("workers", "N", "how many workers (default: the project's)", &workers_, 0);
  flags.AddInt("ps", "N", "how many ps tasks (default: the project's)", &ps_, 0);
  flags.AddInt("last_step", "N", "StopAtStepHook's last step (default: the project's)", &last_step_, 0);
  flags.AddString("checkpoint_dir", "DIR", "where the chief writes checkpoints (default: the project's)",
                  &checkpoint_dir_);
  flags.AddInt("timeout", "SECONDS", "stop everything when the workers have not finished by then", &timeout_s_, 1);
}

Status TrainCommand::Run(std::ostream& out) {
  CLAB_ASSIGN_OR_RETURN(ProjectRun run, ReadProject(project_));
  const auto models = examples::TrainModels();
  if (std::find(models.begin(), models.end(), run.program) == models.end())
    return errors::InvalidArgument(project_, ": program '", run.program, "' is not a training model (",
                                   absl::StrJoin(models, ", "), "); the seed runs with 'clab demo'");
  if (workers_ > 0) run.workers = static_cast<int>(workers_);
  if (ps_ > 0) run.ps = static_cast<int>(ps_);
  if (last_step_ > 0) run.last_step = last_step_;
  if (!checkpoint_dir_.empty()) run.checkpoint_dir = checkpoint_dir_;
  if (run.ps < 1 || run.workers < 1)
    return errors::InvalidArgument(project_, ": the cluster needs at least one ps and one worker");

  CLAB_ASSIGN_OR_RETURN(const std::vector<int> ports, PickFreeLoopbackPorts(run.ps + run.workers));
  std::vector<std::string> ps_addresses, worker_addresses;
  for (int i = 0; i < run.ps; ++i) ps_addresses.push_back(absl::StrCat("127.0.0.1:", ports[static_cast<size_t>(i)]));
  for (int i = 0; i < run.workers; ++i)
    worker_addresses.push_back(absl::StrCat("127.0.0.1:", ports[static_cast<size_t>(run.ps + i)]));
  const std::string cluster =
      absl::StrCat("ps=", absl::StrJoin(ps_addresses, ","), ";worker=", absl::StrJoin(worker_addresses, ","));
  out << "Training " << run.program << " on " << run.ps << " ps and " << run.workers << " workers, to global step "
      << run.last_step << ":\n  cluster " << cluster << "\n" << std::endl;

  std::vector<LocalTask> tasks;
  for (int i = 0; i < run.ps; ++i)
    tasks.push_back({absl::StrCat("ps/", i),
                     {"server", "--cluster", cluster, "--job_name", "ps", "--task_index", std::to_string(i)},
                     false});
  for (int i = 0; i < run.workers; ++i) {
    std::vector<std::string> args{"example", "train", "--model", run.program, "--cluster", cluster, "--job_name",
                                  "worker", "--task_index", std::to_string(i), "--last_step",
                                  std::to_string(run.last_step)};
    if (i == 0 && !run.checkpoint_dir.empty()) args.insert(args.end(), {"--checkpoint_dir", run.checkpoint_dir});
    tasks.push_back({absl::StrCat("worker/", i), args, true});
  }
  CLAB_ASSIGN_OR_RETURN(const LocalTasksResult result, RunLocalTasks(tasks, out, std::chrono::seconds(timeout_s_)));
  out << std::endl;
  if (result.timed_out) return errors::DeadlineExceeded("the workers did not finish within ", timeout_s_, " s");
  for (size_t i = 0; i < result.worker_status.size(); ++i) {
    if (result.worker_status[i] != 0)
      return errors::Unknown("worker ", i, " failed with exit status ", result.worker_status[i], " (see its lines above)");
  }
  for (size_t i = 0; i < result.worker_lines.size(); ++i)
    for (const std::string& line : result.worker_lines[i])
      if (line.find("held-out accuracy") != std::string::npos) out << "worker/" << i << ": " << line << std::endl;
  return OkStatus();
}

}  // namespace clab::cli
