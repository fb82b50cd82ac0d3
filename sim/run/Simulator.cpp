#include "run/Simulator.h"

#include "model/StepGraph.h"
#include "platform/WorkerGroups.h"
#include "report/Bottleneck.h"
#include "run/ClusterSimulation.h"
#include "run/ForkedRun.h"

#include <absl/strings/str_cat.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

namespace clab::sim {

Simulator::Simulator(SimProject project, PlatformSpec platform, Calibration calibration)
    : project_(std::move(project)), platform_(std::move(platform)), calibration_(std::move(calibration)) {}

std::vector<std::string> Simulator::Tasks(int workers, int ps) {
  std::vector<std::string> tasks;
  for (int i = 0; i < ps; ++i) tasks.push_back(absl::StrCat("/job:ps/replica:0/task:", i));
  for (int i = 0; i < workers; ++i) tasks.push_back(absl::StrCat("/job:worker/replica:0/task:", i));
  return tasks;
}

Status Simulator::CheckConfig(const SimulationConfig& config) const {
  if (config.workers < 1 || config.workers > 100000)
    return errors::InvalidArgument("workers: ", config.workers, " is not a worker count (1 to 100000)");
  if (config.ps < 1 || config.ps > 10000)
    return errors::InvalidArgument("ps: ", config.ps, " is not a ps count (1 to 10000)");
  if (config.steps < 1 || config.steps > 1000000)
    return errors::InvalidArgument("steps: ", config.steps, " is not a step count (1 to 1000000)");
  return OkStatus();
}

StatusOr<const StepPlan*> Simulator::Plan(int workers, int ps) {
  auto it = plans_.find(ps);
  if (it != plans_.end()) return it->second.get();
  // Every worker builds the same graph for its own task; worker 0's stands for all.
  const std::map<std::string, int> tasks = {{"ps", ps}, {"worker", std::max(workers, 1)}};
  CLAB_ASSIGN_OR_RETURN(const StepGraph graph, BuildStepGraph(project_, tasks));
  PlanRequest request;
  request.graph = &graph.graph;
  request.fetches = graph.fetches;
  request.targets = graph.targets;
  request.tasks = tasks;
  request.session_task = "/job:worker/replica:0/task:0";
  StatusOr<StepPlan> step = PlanStep(request);
  if (!step.ok())
    return Status(step.status().code(), absl::StrCat(project_.path, " on ", ps, " ps: ", step.status().message()));
  it = plans_.emplace(ps, std::make_unique<StepPlan>(std::move(*step))).first;
  return it->second.get();
}

StatusOr<StepModel> Simulator::Model(int workers, int ps) {
  CLAB_ASSIGN_OR_RETURN(const StepPlan* step, Plan(workers, ps));
  return BuildStepModel(*step, calibration_);
}

StatusOr<SimulationResult> Simulator::Run(const SimulationConfig& config) {
  std::vector<StatusOr<SimulationResult>> results = RunAll({config}, 1);
  return std::move(results.front());
}

std::vector<StatusOr<SimulationResult>> Simulator::RunAll(const std::vector<SimulationConfig>& configs, int parallel) {
  std::vector<StatusOr<SimulationResult>> results(configs.size(), errors::Internal("not run"));
  // Everything a child needs is made here, before the fork, so children only simulate.
  struct Prepared {
    StepModel model;
    BoundPlatform bound;
  };
  std::vector<std::unique_ptr<Prepared>> prepared(configs.size());
  std::vector<ForkedWork> work;
  std::vector<size_t> index_of_work;
  for (size_t i = 0; i < configs.size(); ++i) {
    const SimulationConfig& config = configs[i];
    Status checked = CheckConfig(config);
    if (!checked.ok()) {
      results[i] = checked;
      continue;
    }
    StatusOr<StepModel> model = Model(config.workers, config.ps);
    if (!model.ok()) {
      results[i] = model.status();
      continue;
    }
    StatusOr<BoundPlatform> bound = platform_.Bind(Tasks(config.workers, config.ps));
    if (!bound.ok()) {
      results[i] = bound.status();
      continue;
    }
    prepared[i] = std::make_unique<Prepared>(
        Prepared{std::move(*model), GroupIdenticalWorkers(*bound, platform_, config.max_simulated_workers)});
    const Prepared* p = prepared[i].get();
    const PlatformSpec* platform = &platform_;
    for (int replica = 0; replica < config.Replicas(); ++replica) {
      SimulationConfig run = config;
      run.seed = config.seed + static_cast<uint64_t>(replica);
      work.push_back([p, platform, run]() -> StatusOr<std::string> {
        SimulationInput input;
        input.model = &p->model;
        input.platform = platform;
        input.bound = &p->bound;
        input.config = run;
        CLAB_ASSIGN_OR_RETURN(const SimulationResult result, RunClusterSimulation(input));
        return result.ToJsonText();
      });
      index_of_work.push_back(i);
    }
  }
  if (parallel <= 0) parallel = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<StatusOr<std::string>> answers = RunForked(work, parallel);
  std::vector<std::vector<SimulationResult>> runs(configs.size());
  std::vector<Status> failures(configs.size());
  for (size_t w = 0; w < answers.size(); ++w) {
    const size_t i = index_of_work[w];
    StatusOr<SimulationResult> run =
        answers[w].ok() ? SimulationResult::FromJsonText(*answers[w]) : StatusOr<SimulationResult>(answers[w].status());
    if (!run.ok()) {
      failures[i] = run.status();
      continue;
    }
    runs[i].push_back(std::move(*run));
  }
  for (size_t i = 0; i < configs.size(); ++i) {
    if (!prepared[i]) continue;
    if (!failures[i].ok()) {
      results[i] = failures[i];
      continue;
    }
    SimulationResult result = SimulationResult::Mean(runs[i]);
    result.config = configs[i];
    const Bottleneck bottleneck = FindBottleneck(result, prepared[i]->model);
    result.bottleneck = bottleneck.text;
    result.bottleneck_resource = bottleneck.resource;
    result.bottleneck_kind = static_cast<int>(bottleneck.kind);
    result.bottleneck_owner = bottleneck.owner;
    result.bottleneck_utilisation = bottleneck.utilisation;
    result.bottleneck_share = bottleneck.share;
    result.bottleneck_tensor = bottleneck.tensor;
    results[i] = std::move(result);
  }
  return results;
}

}  // namespace clab::sim
