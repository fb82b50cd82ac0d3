#include "models/TrainProgram.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/distributed/Server.h"
#include "clab/train/MonitoredSession.h"
#include "clab/train/hooks/LoggingTensorHook.h"
#include "clab/train/hooks/StopAtStepHook.h"
#include "models/Classifier.h"

#include <absl/strings/str_join.h>

#include <numeric>
#include <ostream>
#include <random>

namespace clab::examples {
namespace {

struct ModelSpec {
  std::string data;
  std::vector<int> hidden;
  double learning_rate;
  ConvLayer conv;
};

StatusOr<ModelSpec> SpecOf(const std::string& model) {
  if (model == "digits-mlp") return ModelSpec{"digits.csv.gz", {128}, 0.1, {}};
  if (model == "digits-cnn") return ModelSpec{"digits.csv.gz", {}, 0.1, DigitsConvLayer()};
  if (model == "iris-softmax") return ModelSpec{"iris.csv", {}, 0.1, {}};
  return errors::InvalidArgument("unknown model '", model, "' (models: ", absl::StrJoin(TrainModels(), ", "), ")");
}

}  // namespace

std::vector<std::string> TrainModels() { return {"digits-mlp", "digits-cnn", "iris-softmax"}; }

Status RunTrainProgram(const TrainProgramOptions& options, std::ostream& out) {
  CLAB_ASSIGN_OR_RETURN(const ModelSpec spec, SpecOf(options.model));
  ServerOptions server_options;
  server_options.cluster = options.cluster;
  server_options.job_name = options.job_name;
  server_options.task_index = options.task_index;
  server_options.config.mutable_clusterlab()->set_wait_for_tasks_ms(options.wait_for_ps_ms);
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, Server::Create(server_options));
  if (options.job_name != "worker") {
    return JoinUntilTerminationSignal(*server, [&](const char* signal) {
      out << "Received " << signal << ", stopping " << server->task_name() << std::endl;
    });
  }
  if (options.wait_for_watcher_ms > 0) server->WaitForWatcher(static_cast<int>(options.wait_for_watcher_ms));

  CLAB_ASSIGN_OR_RETURN(const ClassificationData data, LoadClassificationCsv(DataPath(spec.data)));
  const int workers = options.cluster.num_tasks("worker");
  const Examples shard = Shard(data.train, options.task_index, std::max(workers, 1));

  GraphBuilder g;
  ClassifierGraph model;
  {
    ReplicaDeviceSetterOptions setter;
    setter.worker_device = StrCat("/job:worker/task:", options.task_index);
    setter.cluster = options.cluster.ToDict();
    CLAB_ASSIGN_OR_RETURN(DeviceFunction device_function, ReplicaDeviceSetter(setter));
    auto scope = g.WithDevice(device_function);
    CLAB_ASSIGN_OR_RETURN(model, BuildClassifier(g, data.num_features, spec.hidden, data.num_classes,
                                                 spec.learning_rate, /*seed=*/7, spec.conv));
  }

  MonitoredTrainingSessionOptions session_options;
  session_options.master = server->target();
  session_options.is_chief = options.task_index == 0;
  session_options.checkpoint_dir = options.checkpoint_dir;
  session_options.config.mutable_clusterlab()->set_wait_for_tasks_ms(options.wait_for_ps_ms);
  session_options.hooks.push_back(std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(options.last_step)));
  CLAB_ASSIGN_OR_RETURN(auto logging, LoggingTensorHook::Create({{"loss", model.loss.name()}}, 100, 0));
  session_options.hooks.push_back(logging);
  session_options.log = std::make_shared<TrainingLog>(server->task_name());
  session_options.log->AddSink([server = server.get()](const TaskEvent& event) { server->Publish(event); });
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<MonitoredSession> session, MonitoredTrainingSession(g, session_options));

  // Minibatches of 32 in a shuffled order, a new order each pass over the shard.
  std::mt19937_64 rng(100 + static_cast<uint64_t>(options.task_index));
  std::vector<int64_t> order(static_cast<size_t>(shard.size()));
  std::iota(order.begin(), order.end(), 0);
  size_t next = order.size();
  std::vector<Tensor> outputs;
  int64_t runs = 0;
  while (!session->should_stop()) {
    std::vector<int64_t> rows;
    for (int i = 0; i < 32; ++i) {
      if (next == order.size()) {
        std::shuffle(order.begin(), order.end(), rng);
        next = 0;
      }
      rows.push_back(order[next++]);
    }
    Examples batch{Tensor(DT_FLOAT, TensorShape({32, data.num_features})), Tensor(DT_INT32, TensorShape({32}))};
    for (size_t i = 0; i < rows.size(); ++i) {
      std::copy_n(shard.features.data<float>() + rows[i] * data.num_features, data.num_features,
                  batch.features.data<float>() + static_cast<int64_t>(i) * data.num_features);
      batch.labels.data<int32_t>()[i] = shard.labels.data<int32_t>()[rows[i]];
    }
    CLAB_RETURN_IF_ERROR(session->Run({model.train.node(), model.loss.name()},
                                      {{model.features.name(), batch.features}, {model.labels.name(), batch.labels}},
                                      &outputs));
    ++runs;
  }
  CLAB_ASSIGN_OR_RETURN(const double accuracy, Accuracy(*session->raw_session(), model, data.held_out));
  CLAB_RETURN_IF_ERROR(session->Close());
  out << "Worker " << options.task_index << " ran " << runs << " steps; held-out accuracy " << accuracy << std::endl;
  return server->Stop();
}

}  // namespace clab::examples
