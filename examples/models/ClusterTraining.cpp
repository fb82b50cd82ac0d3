#include "models/ClusterTraining.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/ops/Ops.h"
#include "clab/train/MonitoredSession.h"
#include "clab/train/hooks/StopAtStepHook.h"
#include "models/MinibatchSampler.h"

#include <chrono>
#include <future>

namespace clab::examples {
namespace {

// One worker of synchronous training: a monitored session with the replicas' hook, until
// the global step (one per aggregated update) reaches total_steps. Worker 0 is the chief.
StatusOr<double> TrainSynchronously(GraphBuilder& g, const tools::ClassifierGraph& model, const std::string& target,
                                    int task, const Examples& shard, const Examples& held_out,
                                    const ClusterTrainingOptions& options,
                                    std::promise<std::chrono::steady_clock::time_point>& started) {
  MonitoredTrainingSessionOptions session_options;
  session_options.master = target;
  session_options.is_chief = task == 0;
  session_options.log = std::make_shared<TrainingLog>("", /*print=*/false);
  CLAB_ASSIGN_OR_RETURN(auto sync_hook, model.sync->MakeSessionRunHook(session_options.is_chief));
  session_options.hooks = {sync_hook, std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(options.total_steps))};
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<MonitoredSession> session, MonitoredTrainingSession(g, session_options));
  if (task == 0) started.set_value(std::chrono::steady_clock::now());
  if (options.data_path.empty() && shard.size() == 0)
    return errors::InvalidArgument("worker ", task, "'s shard of the training data has no examples");
  // Minibatches fed from the shard, or (with a data path) read by the graph's dataset op.
  MinibatchSampler sampler(shard, options.batch, options.seed + 100 + static_cast<uint64_t>(task));
  std::vector<Tensor> out;
  while (!session->should_stop()) {
    FeedList feeds;
    if (options.data_path.empty()) {
      const Examples batch = sampler.Next();
      feeds = {{model.features.name(), batch.features}, {model.labels.name(), batch.labels}};
    }
    Status s = session->Run({model.train.node()}, feeds, &out);
    if (absl::IsOutOfRange(s)) break;  // the chief has finished
    CLAB_RETURN_IF_ERROR(s);
  }
  double accuracy = 0;
  if (task == 0) {
    CLAB_ASSIGN_OR_RETURN(accuracy, Accuracy(*session->raw_session(), model, held_out));
  }
  CLAB_RETURN_IF_ERROR(session->Close());
  return accuracy;
}

}  // namespace

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
    tools::ClassifierGraph model;
    {
      auto scope = g.WithDevice(setter);
      if (options.data_path.empty()) {
        CLAB_ASSIGN_OR_RETURN(model, tools::BuildClassifier(g, data.num_features, options.hidden, data.num_classes,
                                                            options.learning_rate, options.seed, options.conv,
                                                            options.sync ? workers : 0));
      } else {
        const ops::Minibatch inputs =
            ClassifierInputs(g, TrainingDataset(options.data_path, data.num_features, options.batch, task, workers,
                                                options.seed + 100 + static_cast<uint64_t>(task)));
        CLAB_ASSIGN_OR_RETURN(model, tools::BuildClassifierOn(g, inputs.features, inputs.labels, data.num_features,
                                                              options.hidden, data.num_classes, options.learning_rate,
                                                              options.seed, options.conv, options.sync ? workers : 0));
      }
    }
    const Examples shard = options.data_path.empty() ? Shard(data.train, task, workers) : Examples{};
    const std::string target = options.worker_servers[static_cast<size_t>(task)]->target();
    if (model.sync) return TrainSynchronously(g, model, target, task, shard, data.held_out, options, started);
    const Output init = ops::GlobalVariablesInitializer(g);
    SessionOptions session_options;
    session_options.target = target;
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(session_options));
    CLAB_RETURN_IF_ERROR(session->Create(g.graph_def()));
    // One warm-up step each (graph registration), not counted.
    std::vector<Tensor> out;
    if (task == 0) {
      CLAB_RETURN_IF_ERROR(session->Run({}, {}, {init.node()}, &out));
      initialised.set_value();
      started.set_value(std::chrono::steady_clock::now());
    }
    ready.wait();
    const int64_t steps = options.total_steps / workers + (task < options.total_steps % workers ? 1 : 0);
    if (options.data_path.empty()) {
      CLAB_RETURN_IF_ERROR(Train(*session, model, shard, steps, options.batch, options.seed + 100 + task).status());
    } else {
      CLAB_RETURN_IF_ERROR(TrainOnGraphInput(*session, model, steps).status());
    }
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
