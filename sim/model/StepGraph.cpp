#include "model/StepGraph.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/graph/GraphImport.h"
#include "clab/graph/TextProto.h"
#include "clab/train/GlobalStep.h"
#include "examplegraphs/SeedGraph.h"
#include "examplegraphs/TrainGraph.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>

namespace clab::sim {

StatusOr<StepGraph> BuildStepGraph(const SimProject& project, const std::map<std::string, int>& tasks) {
  StepGraph step;
  if (!project.graph.empty()) {
    CLAB_RETURN_IF_ERROR(ParseTextProto(project.graph, StrCat(project.path, ": graph"), &step.graph));
    step.fetches = GuessStepFetches(step.graph);
    if (step.fetches.empty()) return errors::InvalidArgument(project.path, ": graph: nothing for a step to run");
    return step;
  }
  std::map<std::string, std::vector<std::string>> cluster;
  for (const auto& [job, count] : tasks)
    for (int i = 0; i < count; ++i) cluster[job].push_back(absl::StrCat(job, "-", i, ":2222"));
  const int workers = tasks.count("worker") ? tasks.at("worker") : 0;
  if (workers < 1) return errors::InvalidArgument(project.path, ": the cluster has no worker to run a step");
  GraphBuilder g;
  ReplicaDeviceSetterOptions setter;
  setter.worker_device = "/job:worker/task:0";
  setter.cluster = cluster;
  CLAB_ASSIGN_OR_RETURN(const DeviceFunction device_function, ReplicaDeviceSetter(setter));
  Output global_step;
  {
    auto scope = g.WithDevice(device_function);
    if (project.program == "seed") {
      // As the seed program builds it (not faithful): the global step on the ps, x . w, and
      // the increment that lets StopAtStepHook end the run.
      global_step = GetOrCreateGlobalStep(g);
      const tools::SeedGraph seed = tools::BuildSeedGraph(g);
      step.fetches.push_back(seed.product.name());
      step.fetches.push_back(IncrementGlobalStep(g, global_step).name());
    } else {
      const auto models = tools::TrainModels();
      if (std::find(models.begin(), models.end(), project.program) == models.end())
        return errors::InvalidArgument(project.path, ": program: '", project.program, "' is unknown (known: seed, ",
                                       absl::StrJoin(models, ", "), ")");
      // Synchronous replicas are simulated by the SyncReplicas protocol around the step;
      // the step itself (its gradients, their bytes and applies) is the asynchronous one.
      // The dataset node names the model's data file; the simulator never reads it.
      CLAB_ASSIGN_OR_RETURN(const tools::TrainModelSpec spec, tools::TrainModelSpecOf(project.program));
      CLAB_ASSIGN_OR_RETURN(const tools::TrainGraph model, tools::BuildTrainGraph(g, {.model = project.program,
                                                                                      .data_path = spec.data_file,
                                                                                      .task_index = 0,
                                                                                      .num_workers = workers,
                                                                                      .sync_replicas = 0}));
      step.targets.push_back(model.train.node());
      step.fetches.push_back(model.loss.name());
      global_step = GetOrCreateGlobalStep(g);
    }
  }
  CLAB_RETURN_IF_ERROR(g.status());
  // StopAtStepHook and the step reporter read the global step with every run.
  step.fetches.push_back(GlobalStepReadTensor(global_step));
  step.graph = g.graph_def();
  return step;
}

}  // namespace clab::sim
