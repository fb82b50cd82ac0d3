#include "models/ClusterTraining.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/ops/Ops.h"

#include <chrono>
#include <future>

namespace clab::examples {

StatusOr<ClusterTrainingResult> TrainOnCluster(const ClassificationData& data, const ClusterTrainingOptions& options) {
  const int workers = static_cast<int>(options.worker_servers.size());
  if (workers == 0) return errors::InvalidArgument("TrainOnCluster needs at least one worker server");
  std::promise<void> initialised;
  std::shared_future<void> ready = initialised.get_future().share();
  std::promise<std::chrono::steady_clock::time_point> started;
  auto start_time = started.get_future().share();

  auto worker = [&](int task) -> StatusOr<double> {
    GraphBuilder g;
    ReplicaDeviceSetterOptions setter_options;
    setter_options.worker_device = "/job:worker/task:" + std::to_string(task);
    setter_options.cluster = options.cluster;
    CLAB_ASSIGN_OR_RETURN(DeviceFunction setter, ReplicaDeviceSetter(setter_options));
    ClassifierGraph model;
    {
      auto scope = g.WithDevice(setter);
      CLAB_ASSIGN_OR_RETURN(model, BuildClassifier(g, data.num_features, options.hidden, data.num_classes,
                                                   options.learning_rate, options.seed, options.conv));
    }
    const Output init = ops::GlobalVariablesInitializer(g);
    SessionOptions session_options;
    session_options.target = options.worker_servers[static_cast<size_t>(task)]->target();
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(session_options));
    CLAB_RETURN_IF_ERROR(session->Create(g.graph_def()));
    const Examples shard = Shard(data.train, task, workers);
    // One warm-up step each (graph registration), not counted.
    std::vector<Tensor> out;
    if (task == 0) {
      CLAB_RETURN_IF_ERROR(session->Run({}, {}, {init.node()}, &out));
      initialised.set_value();
      started.set_value(std::chrono::steady_clock::now());
    }
    ready.wait();
    const int64_t steps = options.total_steps / workers + (task < options.total_steps % workers ? 1 : 0);
    CLAB_RETURN_IF_ERROR(Train(*session, model, shard, steps, options.batch, options.seed + 100 + task).status());
    if (task != 0) return 0.0;
    return Accuracy(*session, model, data.held_out);
  };
  std::vector<std::future<StatusOr<double>>> runs;
  for (int task = 0; task < workers; ++task) runs.push_back(std::async(std::launch::async, worker, task));
  Status first_error;
  double accuracy = 0;
  for (int task = 0; task < workers; ++task) {
    StatusOr<double> result = runs[static_cast<size_t>(task)].get();
    if (!result.ok() && first_error.ok()) first_error = result.status();
    if (result.ok() && task == 0) accuracy = *result;
  }
  const auto end = std::chrono::steady_clock::now();
  CLAB_RETURN_IF_ERROR(first_error);
  ClusterTrainingResult result;
  result.seconds = std::chrono::duration<double>(end - start_time.get()).count();
  result.steps = options.total_steps;
  result.held_out_accuracy = accuracy;
  return result;
}

}  // namespace clab::examples
