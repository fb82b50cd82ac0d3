#include "bench/ClusterTrainRun.h"

#include "bench/CostMeter.h"
#include "bench/TrainWorker.h"
#include "clab/distributed/ClusterSpec.h"
#include "launch/process/ChildProcess.h"
#include "network/LoopbackPorts.h"

#include <absl/cleanup/cleanup.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <vector>

#include <stdlib.h>

namespace clab::cli {
namespace {

using launch::ChildProcess;

std::string Said(const ChildProcess& process) { return absl::StrJoin(process.lines(), " / "); }

}  // namespace

StatusOr<TrainRun> RunClusterTraining(const ClusterTrainOptions& options) {
  const int n = options.workers;
  CLAB_ASSIGN_OR_RETURN(const std::vector<int> ports, tools::PickFreeLoopbackPorts(n + 1));
  std::map<std::string, std::vector<std::string>> jobs;
  jobs["ps"] = {absl::StrCat("127.0.0.1:", ports[0])};
  for (int i = 0; i < n; ++i) jobs["worker"].push_back(absl::StrCat("127.0.0.1:", ports[static_cast<size_t>(i) + 1]));
  CLAB_ASSIGN_OR_RETURN(const ClusterSpec cluster, ClusterSpec::FromDict(jobs));
  const std::string inline_cluster = cluster.ToInline();
  // The workers' start file, in a fresh private directory removed at the end.
  std::string start_dir = (std::filesystem::temp_directory_path() / "clab-bench-train-XXXXXX").string();
  if (::mkdtemp(start_dir.data()) == nullptr)
    return errors::PermissionDenied("cannot make a directory like ", start_dir);
  absl::Cleanup remove_start_dir = [&start_dir] {
    std::error_code ignored;
    std::filesystem::remove_all(start_dir, ignored);
  };
  const std::string go_file = start_dir + "/go";

  // Destroying a ChildProcess stops it: every return below leaves no process behind.
  CLAB_ASSIGN_OR_RETURN(
      std::unique_ptr<ChildProcess> ps,
      ChildProcess::Start(options.clab_program, {"server", "--cluster", inline_cluster, "--job_name", "ps"}, {}));
  if (!ps->WaitForLine("Serving /job:", std::chrono::seconds(60)))
    return errors::Unavailable("the ps process did not start: ", Said(*ps));
  std::vector<std::unique_ptr<ChildProcess>> workers;
  for (int i = 0; i < n; ++i) {
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<ChildProcess> worker,
                          ChildProcess::Start(options.clab_program,
                                              {"bench", "train-worker", "--cluster", inline_cluster, "--task_index",
                                               std::to_string(i), "--steps", std::to_string(options.steps), "--hidden",
                                               std::to_string(options.hidden), "--go_file", go_file},
                                              {}));
    workers.push_back(std::move(worker));
  }
  if (options.progress) {
    std::vector<std::string> pids;
    for (const auto& worker : workers) pids.push_back(std::to_string(worker->pid()));
    options.progress(absl::StrCat("ps pid ", ps->pid(), ", worker pids ", absl::StrJoin(pids, " ")));
  }
  for (int i = 0; i < n; ++i) {
    ChildProcess& worker = *workers[static_cast<size_t>(i)];
    if (!worker.WaitForLine(absl::StrCat("Worker ", i, " ready"), std::chrono::seconds(120)))
      return errors::Unavailable("worker ", i, " did not get ready: ", Said(worker));
  }
  CLAB_ASSIGN_OR_RETURN(const ProcessUsage ps_start, CostMeter::Of(ps->pid()));
  std::ofstream(go_file).put('\n');
  if (!std::filesystem::exists(go_file)) return errors::PermissionDenied("cannot write the start file ", go_file);

  TrainRun run;
  double cpu = 0, switches = 0;
  int64_t first_start = std::numeric_limits<int64_t>::max(), last_end = std::numeric_limits<int64_t>::min();
  for (int i = 0; i < n; ++i) {
    ChildProcess& worker = *workers[static_cast<size_t>(i)];
    const std::optional<int> exit = worker.Wait(std::chrono::minutes(30));
    if (!exit || *exit != 0)
      return errors::Internal("worker ", i, exit ? absl::StrCat(" exited with status ", *exit) : " did not finish",
                              ": ", Said(worker));
    bool reported = false;
    for (const std::string& line : worker.lines()) {
      if (line.rfind(kTrainWorkerResult, 0) != 0) continue;
      const nlohmann::json result = nlohmann::json::parse(line.substr(sizeof(kTrainWorkerResult) - 1), nullptr, false);
      if (result.is_discarded() || !result.contains("steps") || !result.contains("start_ns"))
        return errors::DataLoss("worker ", i, " reported an unreadable result: '", line, "'");
      run.steps += result["steps"].get<int64_t>();
      first_start = std::min(first_start, result["start_ns"].get<int64_t>());
      last_end = std::max(last_end, result["end_ns"].get<int64_t>());
      cpu += result["cpu_us"].get<double>();
      switches += result["context_switches"].get<double>();
      if (i == 0 && result["accuracy"].is_number()) run.accuracy = result["accuracy"].get<double>();
      reported = true;
    }
    if (!reported) return errors::DataLoss("worker ", i, " ended without reporting a result: ", Said(worker));
  }
  CLAB_ASSIGN_OR_RETURN(const ProcessUsage ps_end, CostMeter::Of(ps->pid()));
  ps->Stop();
  const ProcessUsage ps_usage = ps_end.Since(ps_start);
  cpu += ps_usage.cpu_us;
  switches += ps_usage.context_switches;
  run.seconds = static_cast<double>(last_end - first_start) / 1e9;
  const double steps = static_cast<double>(std::max<int64_t>(run.steps, 1));
  run.cpu_us = cpu / steps;
  run.context_switches = switches / steps;
  return run;
}

}  // namespace clab::cli
