#include "commands/TrainCommand.h"

#include "clab/core/JsonNesting.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "cli/LocalTasks.h"
#include "examplegraphs/TrainGraph.h"
#include "network/LoopbackPorts.h"

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
  int64_t save_checkpoint_steps = 0;
  int64_t save_checkpoint_secs = 0;
  bool sync = false;
};

StatusOr<ProjectRun> ReadProject(const std::string& path) {
  std::ifstream file(path);
  if (!file) return errors::NotFound("cannot read '", path, "'");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  CLAB_RETURN_IF_ERROR(CheckJsonNesting(text, path));
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return errors::InvalidArgument(path, ": not a JSON object");
  // Each field is checked for its type, so a wrong one is named rather than ignored.
  auto field = [&](const nlohmann::json& object, const char* name, bool (nlohmann::json::*is_type)() const,
                   const char* what) -> StatusOr<const nlohmann::json*> {
    auto it = object.find(name);
    if (it == object.end()) return static_cast<const nlohmann::json*>(nullptr);
    const char* within = &object == &json ? "" : "run.";
    if (!((*it).*is_type)()) return errors::InvalidArgument(path, ": ", within, name, ": wants ", what);
    return &*it;
  };
  CLAB_ASSIGN_OR_RETURN(const nlohmann::json* format, field(json, "format", &nlohmann::json::is_string, "a string"));
  if (format == nullptr || format->get<std::string>() != "clusterlab-project")
    return errors::InvalidArgument(path, ": format: not a ClusterLab project");
  ProjectRun run;
  CLAB_ASSIGN_OR_RETURN(const nlohmann::json* program, field(json, "program", &nlohmann::json::is_string, "a string"));
  run.program = program ? program->get<std::string>() : "seed";
  CLAB_ASSIGN_OR_RETURN(const nlohmann::json* cluster,
                        field(json, "cluster", &nlohmann::json::is_object, "an object of job -> addresses"));
  if (cluster == nullptr) return errors::InvalidArgument(path, ": cluster: missing");
  for (const auto& [job, addresses] : cluster->items()) {
    if (!addresses.is_array()) return errors::InvalidArgument(path, ": cluster.", job, ": wants a list of addresses");
    if (job == "ps") run.ps = static_cast<int>(addresses.size());
    if (job == "worker") run.workers = static_cast<int>(addresses.size());
  }
  run.last_step = 3000;
  CLAB_ASSIGN_OR_RETURN(const nlohmann::json* settings, field(json, "run", &nlohmann::json::is_object, "an object"));
  if (settings != nullptr) {
    CLAB_ASSIGN_OR_RETURN(const nlohmann::json* last_step,
                          field(*settings, "last_step", &nlohmann::json::is_number_integer, "a whole number"));
    if (last_step != nullptr) {
      if (last_step->is_number_unsigned() ? last_step->get<uint64_t>() > uint64_t{1} << 62
                                          : last_step->get<int64_t>() < 0)
        return errors::InvalidArgument(path, ": run.last_step: ", last_step->dump(), " is out of range (0 to 2^62)");
      run.last_step = last_step->get<int64_t>();
    }
    CLAB_ASSIGN_OR_RETURN(const nlohmann::json* dir,
                          field(*settings, "checkpoint_dir", &nlohmann::json::is_string, "a string"));
    if (dir != nullptr) run.checkpoint_dir = dir->get<std::string>();
    for (auto [name, target] : {std::pair{"save_checkpoint_steps", &run.save_checkpoint_steps},
                                std::pair{"save_checkpoint_secs", &run.save_checkpoint_secs}}) {
      CLAB_ASSIGN_OR_RETURN(const nlohmann::json* every,
                            field(*settings, name, &nlohmann::json::is_number_integer, "a whole number"));
      if (every == nullptr) continue;
      if (every->is_number_unsigned() ? every->get<uint64_t>() > uint64_t{1} << 62 : every->get<int64_t>() < 0)
        return errors::InvalidArgument(path, ": run.", name, ": ", every->dump(), " is out of range (0 to 2^62)");
      *target = every->get<int64_t>();
    }
    CLAB_ASSIGN_OR_RETURN(const nlohmann::json* sync,
                          field(*settings, "sync", &nlohmann::json::is_boolean, "true or false"));
    if (sync != nullptr) run.sync = sync->get<bool>();
  }
  if (run.last_step < 1) return errors::InvalidArgument(path, ": run.last_step: ", run.last_step, " is not >= 1");
  return run;
}

}  // namespace

std::string TrainCommand::description() const {
  return "Reads a .clab project whose program is a training model (digits-mlp, digits-cnn,\n"
         "iris-softmax, linear-regression), starts its ps and worker tasks as processes on free\n"
         "127.0.0.1 ports ('clab example train'), prints every task's output with its label, and\n"
         "ends with what each worker learnt (held-out accuracy, or the fitted line). --workers and\n"
         "--ps change the cluster's size; the run settings (last step, checkpoint directory and\n"
         "interval, sync) come from the project unless given. The chief checkpoints every 10 s\n"
         "unless --save_checkpoint_steps or --save_checkpoint_secs (or the project's run.\n"
         "save_checkpoint_steps or run.save_checkpoint_secs) says otherwise.\n\n"
         "Example:  clab train examples/projects/digits-mlp.clab --workers 2";
}

void TrainCommand::DeclareFlags(FlagParser& flags) {
  flags.AddPositional("PROJECT", "a .clab project", &project_);
  flags.AddInt("workers", "N", "how many workers (default: the project's)", &workers_, 0, 1024);
  flags.AddInt("ps", "N", "how many ps tasks (default: the project's)", &ps_, 0, 1024);
  flags.AddInt("last_step", "N", "StopAtStepHook's last step (default: the project's)", &last_step_, 0);
  flags.AddString("checkpoint_dir", "DIR", "where the chief writes checkpoints (default: the project's)",
                  &checkpoint_dir_);
  flags.AddInt("save_checkpoint_steps", "N", "the chief checkpoints every N global steps (default: by time)",
               &save_checkpoint_steps_, 0);
  flags.AddInt("save_checkpoint_secs", "S", "the chief checkpoints every S seconds", &save_checkpoint_secs_, 0);
  flags.AddBool("sync", "synchronous replicas (default: the project's run.sync, else asynchronous)", &sync_);
  flags.AddInt("timeout", "SECONDS", "stop everything when the workers have not finished by then", &timeout_s_, 1);
}

Status TrainCommand::Run(std::ostream& out) {
  CLAB_ASSIGN_OR_RETURN(ProjectRun run, ReadProject(project_));
  const auto models = tools::TrainModels();
  if (std::find(models.begin(), models.end(), run.program) == models.end())
    return errors::InvalidArgument(project_, ": program '", run.program, "' is not a training model (",
                                   absl::StrJoin(models, ", "), "); the seed runs with 'clab demo'");
  if (workers_ > 0) run.workers = static_cast<int>(workers_);
  if (ps_ > 0) run.ps = static_cast<int>(ps_);
  if (last_step_ > 0) run.last_step = last_step_;
  if (!checkpoint_dir_.empty()) run.checkpoint_dir = checkpoint_dir_;
  // The interval on the command line replaces the project's as a whole.
  if (save_checkpoint_steps_ > 0 || save_checkpoint_secs_ > 0) {
    run.save_checkpoint_steps = save_checkpoint_steps_;
    run.save_checkpoint_secs = save_checkpoint_secs_;
  }
  if (sync_) run.sync = true;
  if (run.ps < 1 || run.workers < 1)
    return errors::InvalidArgument(project_, ": the cluster needs at least one ps and one worker");

  CLAB_ASSIGN_OR_RETURN(const std::vector<int> ports, tools::PickFreeLoopbackPorts(run.ps + run.workers));
  std::vector<std::string> ps_addresses, worker_addresses;
  for (int i = 0; i < run.ps; ++i) ps_addresses.push_back(absl::StrCat("127.0.0.1:", ports[static_cast<size_t>(i)]));
  for (int i = 0; i < run.workers; ++i)
    worker_addresses.push_back(absl::StrCat("127.0.0.1:", ports[static_cast<size_t>(run.ps + i)]));
  const std::string cluster =
      absl::StrCat("ps=", absl::StrJoin(ps_addresses, ","), ";worker=", absl::StrJoin(worker_addresses, ","));
  out << "Training " << run.program << " on " << run.ps << " ps and " << run.workers << " workers, to global step "
      << run.last_step << (run.sync ? ", as synchronous replicas" : ", asynchronously") << ":\n  cluster " << cluster
      << "\n"
      << std::endl;

  std::vector<LocalTask> tasks;
  for (int i = 0; i < run.ps; ++i)
    tasks.push_back({absl::StrCat("ps/", i),
                     {"server", "--cluster", cluster, "--job_name", "ps", "--task_index", std::to_string(i)},
                     false});
  for (int i = 0; i < run.workers; ++i) {
    std::vector<std::string> args{"example",      "train",           "--model",     run.program,
                                  "--cluster",    cluster,           "--job_name",  "worker",
                                  "--task_index", std::to_string(i), "--last_step", std::to_string(run.last_step)};
    if (i == 0 && !run.checkpoint_dir.empty()) {
      // TensorFlow's default of one checkpoint per 600 s would leave a short run nothing to
      // restore after a ps failure: unless told otherwise, every 10 s.
      args.insert(args.end(), {"--checkpoint_dir", run.checkpoint_dir});
      if (run.save_checkpoint_steps > 0)
        args.insert(args.end(), {"--save_checkpoint_steps", std::to_string(run.save_checkpoint_steps)});
      else
        args.insert(args.end(), {"--save_checkpoint_secs",
                                 std::to_string(run.save_checkpoint_secs > 0 ? run.save_checkpoint_secs : 10)});
    }
    if (run.sync) args.push_back("--sync");
    tasks.push_back({absl::StrCat("worker/", i), args, true});
  }
  CLAB_ASSIGN_OR_RETURN(const LocalTasksResult result, RunLocalTasks(tasks, out, std::chrono::seconds(timeout_s_)));
  out << std::endl;
  if (result.timed_out) return errors::DeadlineExceeded("the workers did not finish within ", timeout_s_, " s");
  for (size_t i = 0; i < result.worker_status.size(); ++i) {
    if (result.worker_status[i] != 0)
      return errors::Unknown("worker ", i, " failed with exit status ", result.worker_status[i],
                             " (see its lines above)");
  }
  for (size_t i = 0; i < result.worker_lines.size(); ++i)
    for (const std::string& line : result.worker_lines[i])
      if (line.rfind("Worker ", 0) == 0 && line.find(" steps; ") != std::string::npos)
        out << "worker/" << i << ": " << line << std::endl;
  return OkStatus();
}

}  // namespace clab::cli
