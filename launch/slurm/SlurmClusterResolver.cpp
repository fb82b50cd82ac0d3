#include "launch/slurm/SlurmClusterResolver.h"

#include "launch/slurm/SlurmHostlist.h"
#include "launch/slurm/SlurmTasksPerNode.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>

#include <algorithm>

namespace clab::launch {
namespace {

// The first of `names` that is set, with its name.
std::optional<std::pair<std::string, std::string>> FirstSet(const SlurmEnvironment::Getenv& getenv,
                                                            std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (const char* value = getenv(name); value != nullptr && *value != '\0') return std::make_pair(name, value);
  return std::nullopt;
}

StatusOr<int> ReadNumber(const std::pair<std::string, std::string>& variable) {
  int number = 0;
  if (!absl::SimpleAtoi(variable.second, &number) || number < 0)
    return errors::InvalidArgument(variable.first, "='", variable.second, "' is not a number");
  return number;
}

}  // namespace

StatusOr<SlurmEnvironment> SlurmEnvironment::Read(const Getenv& getenv) {
  SlurmEnvironment environment;
  const auto nodelist = FirstSet(getenv, {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"});
  if (!nodelist)
    return errors::FailedPrecondition(
        "SLURM_STEP_NODELIST and SLURM_JOB_NODELIST are not set: not in a SLURM allocation or job step?");
  environment.nodelist_variable = nodelist->first;
  CLAB_ASSIGN_OR_RETURN(environment.nodes, ExpandHostlist(nodelist->second));
  const auto tasks = FirstSet(getenv, {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"});
  if (!tasks)
    return errors::FailedPrecondition(
        "SLURM_STEP_TASKS_PER_NODE and SLURM_TASKS_PER_NODE are not set: not in a SLURM allocation or job step?");
  environment.tasks_variable = tasks->first;
  CLAB_ASSIGN_OR_RETURN(environment.tasks_per_node, ExpandTasksPerNode(tasks->second));
  if (const auto rank = FirstSet(getenv, {"SLURM_PROCID"})) {
    CLAB_ASSIGN_OR_RETURN(environment.rank, ReadNumber(*rank));
  }
  int sum = 0;
  for (int count : environment.tasks_per_node) sum += count;
  environment.num_tasks = sum;
  if (const auto num_tasks = FirstSet(getenv, {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_NPROCS"})) {
    CLAB_ASSIGN_OR_RETURN(environment.num_tasks, ReadNumber(*num_tasks));
  }
  if (const auto node = FirstSet(getenv, {"SLURMD_NODENAME"})) environment.node_name = node->second;
  return environment;
}

std::map<std::string, int> SlurmClusterResolver::JobSizes(const ClusterSpec& cluster) {
  std::map<std::string, int> jobs;
  for (const std::string& job : cluster.jobs()) jobs[job] = cluster.num_tasks(job);
  return jobs;
}

StatusOr<std::map<std::string, int>> SlurmClusterResolver::ParseJobs(const std::string& text) {
  std::map<std::string, int> jobs;
  for (const absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    const std::vector<std::string> pair = absl::StrSplit(part, ':');
    int count = 0;
    if (pair.size() != 2 || pair[0].empty() || !absl::SimpleAtoi(pair[1], &count) || count < 1)
      return errors::InvalidArgument("'", part, "' is not JOB:COUNT (like ps:1)");
    jobs[pair[0]] = count;
  }
  if (jobs.empty()) return errors::InvalidArgument("no jobs in '", text, "' (like ps:1,worker:2)");
  return jobs;
}

StatusOr<SlurmClusterResolver::Resolved> SlurmClusterResolver::Resolve(const Options& options,
                                                                       const SlurmEnvironment& environment) {
  if (environment.nodes.size() != environment.tasks_per_node.size())
    return errors::InvalidArgument(environment.nodelist_variable, " names ", environment.nodes.size(), " nodes but ",
                                   environment.tasks_variable, " counts tasks for ", environment.tasks_per_node.size());
  // A node named twice counts once, with its last count (as a dict of node -> tasks does).
  std::map<std::string, int> per_node;
  for (size_t i = 0; i < environment.nodes.size(); ++i) per_node[environment.nodes[i]] = environment.tasks_per_node[i];
  int num_tasks = 0, max_per_node = 0;
  for (const auto& [node, count] : per_node) {
    num_tasks += count;
    max_per_node = std::max(max_per_node, count);
  }

  std::map<std::string, int> jobs = options.jobs;
  if (jobs.empty()) jobs["worker"] = environment.num_tasks;
  int wanted = 0;
  std::vector<std::string> asked;
  for (const auto& [job, count] : jobs) {
    wanted += count;
    asked.push_back(absl::StrCat(job, ":", count));
  }
  if (wanted != num_tasks)
    return errors::InvalidArgument("the jobs want ", wanted, " tasks (", absl::StrJoin(asked, ", "),
                                   ") but SLURM gave ", num_tasks, " (", environment.tasks_variable, " over ",
                                   per_node.size(), " nodes)");

  int gpus_per_task = options.gpus_per_task;
  if (options.gpus_per_node > 0 && gpus_per_task == 0)
    gpus_per_task = options.gpus_per_node / std::max(1, max_per_node);
  if (options.gpus_per_node > 0 && (gpus_per_task < 1 || max_per_node * gpus_per_task > options.gpus_per_node))
    return errors::InvalidArgument(max_per_node, " tasks on a node with ", gpus_per_task,
                                   " GPUs each need more than the ", options.gpus_per_node, " GPUs a node has");

  // Nodes sorted by name; on each, consecutive ports (and GPUs) from the base.
  std::vector<std::string> addresses, devices;
  for (const auto& [node, count] : per_node) {
    for (int offset = 0; offset < count; ++offset) {
      addresses.push_back(HostPort{node, options.port_base + offset}.ToString());
      std::vector<std::string> ids;
      for (int g = 0; options.gpus_per_node > 0 && g < gpus_per_task; ++g)
        ids.push_back(std::to_string(offset * gpus_per_task + g));
      devices.push_back(absl::StrJoin(ids, ","));
    }
  }
  Resolved resolved;
  std::map<std::string, std::vector<std::string>> cluster;
  size_t start = 0;
  for (const auto& [job, count] : jobs) {
    cluster[job] = std::vector<std::string>(addresses.begin() + static_cast<long>(start),
                                            addresses.begin() + static_cast<long>(start + static_cast<size_t>(count)));
    if (environment.rank && static_cast<size_t>(*environment.rank) >= start &&
        static_cast<size_t>(*environment.rank) < start + static_cast<size_t>(count)) {
      resolved.task_type = job;
      resolved.task_index = *environment.rank - static_cast<int>(start);
      resolved.address = addresses[static_cast<size_t>(*environment.rank)];
      resolved.cuda_visible_devices = devices[static_cast<size_t>(*environment.rank)];
    }
    start += static_cast<size_t>(count);
  }
  if (environment.rank && resolved.task_type.empty())
    return errors::InvalidArgument("SLURM_PROCID=", *environment.rank, " is not a task of the ", num_tasks,
                                   " in the step");
  CLAB_ASSIGN_OR_RETURN(resolved.cluster, ClusterSpec::FromDict(cluster));
  return resolved;
}

}  // namespace clab::launch
