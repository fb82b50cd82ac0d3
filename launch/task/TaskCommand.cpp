#include "launch/task/TaskCommand.h"

namespace clab::launch {

std::vector<std::string> TaskArguments(const ProjectFile& project, const TaskCommandOptions& options) {
  std::vector<std::string> args;
  auto add_task = [&] {
    if (!options.cluster.empty())
      args.insert(args.end(), {"--cluster", options.cluster, "--job_name", options.job, "--task_index",
                               std::to_string(options.index)});
    // Who may use the cluster: every task gets the project's TLS, token and listening.
    const std::vector<std::string> security =
        options.security ? options.security->TaskFlags() : project.security.TaskFlags();
    args.insert(args.end(), security.begin(), security.end());
  };
  if (options.job != "worker") {
    args = {"server"};
    add_task();
    if (options.until_workers_done) args.push_back("--until_workers_done");
    return args;
  }
  const bool has_graph = !options.graph_path.empty();
  const bool seed = !has_graph && project.program == "seed";
  const bool training = !has_graph && !seed;
  if (has_graph) {
    // Long runs print every 100th step, so that a console keeps up.
    args = {"example",          "graph",         "--graph",
            options.graph_path, "--print_every", project.run.last_step > 1000 ? "100" : "1"};
  } else if (seed) {
    args = {"example", "seed"};
  } else {
    args = {"example", "train", "--model", project.program};
  }
  add_task();
  args.insert(args.end(), {"--last_step", std::to_string(project.run.last_step)});
  const int64_t wait_for_watcher_ms = options.wait_for_watcher_ms > 0
                                          ? options.wait_for_watcher_ms
                                          : (options.until_workers_done ? TaskCommandOptions::kWaitForPsWatchMs : 0);
  if (wait_for_watcher_ms > 0) args.insert(args.end(), {"--wait_for_watcher_ms", std::to_string(wait_for_watcher_ms)});
  if (seed && project.run.faithful) args.push_back("--faithful");
  if (training && project.run.sync) args.push_back("--sync");
  if (training) args.push_back("--log_device_placement");
  if (!training && project.run.max_seconds > 0)
    args.insert(args.end(), {"--max_seconds", std::to_string(project.run.max_seconds)});
  const bool chief_or_unknown = options.cluster.empty() || options.index == 0;
  if (!options.checkpoint_dir.empty() && chief_or_unknown) {
    args.insert(args.end(), {"--checkpoint_dir", options.checkpoint_dir});
    if (project.run.save_checkpoint_steps > 0)
      args.insert(args.end(), {"--save_checkpoint_steps", std::to_string(project.run.save_checkpoint_steps)});
    if (project.run.save_checkpoint_secs > 0)
      args.insert(args.end(), {"--save_checkpoint_secs", std::to_string(project.run.save_checkpoint_secs)});
  }
  return args;
}

}  // namespace clab::launch
