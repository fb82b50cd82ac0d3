#include "models/TrainProgram.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/distributed/Server.h"
#include "clab/train/MonitoredSession.h"
#include "clab/train/hooks/LoggingTensorHook.h"
#include "clab/train/hooks/StopAtStepHook.h"
#include "exampledata/ExampleDataPath.h"
#include "models/Classifier.h"
#include "models/LinearRegression.h"

#include <absl/strings/str_join.h>

#include <algorithm>
#include <functional>
#include <ostream>
#include <tuple>

namespace clab::examples {
namespace {

struct ModelSpec {
  std::string data;
  std::vector<int> hidden;
  double learning_rate;
  tools::ConvLayer conv;
};

StatusOr<ModelSpec> SpecOf(const std::string& model) {
  if (model == "digits-mlp") return ModelSpec{"digits.csv.gz", {128}, 0.1, {}};
  if (model == "digits-cnn") return ModelSpec{"digits.csv.gz", {}, 0.1, tools::DigitsConvLayer()};
  if (model == "iris-softmax") return ModelSpec{"iris.csv", {}, 0.1, {}};
  return errors::InvalidArgument("unknown model '", model, "' (models: ", absl::StrJoin(TrainModels(), ", "), ")");
}

}  // namespace

std::vector<std::string> TrainModels() { return {"digits-mlp", "digits-cnn", "iris-softmax", "linear-regression"}; }

Status RunTrainProgram(const TrainProgramOptions& options, std::ostream& out) {
  const auto models = TrainModels();
  if (std::find(models.begin(), models.end(), options.model) == models.end())
    return errors::InvalidArgument("unknown model '", options.model, "' (models: ", absl::StrJoin(models, ", "), ")");
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, StartTaskServer(options, out));
  if (!server) return OkStatus();  // a ps, after serving until a signal

  const int workers = options.cluster.num_tasks("worker");
  const int sync_replicas = options.sync ? workers : 0;
  GraphBuilder g;
  // The model, and how a worker reports what it learnt at the end.
  Output train, loss;
  std::shared_ptr<SyncReplicasOptimizer> sync;
  std::function<StatusOr<std::string>(Session&)> report;
  ClassificationData data;
  tools::ClassifierGraph classifier;
  {
    ReplicaDeviceSetterOptions setter;
    setter.worker_device = StrCat("/job:worker/task:", options.task_index);
    setter.cluster = options.cluster.ToDict();
    CLAB_ASSIGN_OR_RETURN(DeviceFunction device_function, ReplicaDeviceSetter(setter));
    auto scope = g.WithDevice(device_function);
    if (options.model == "linear-regression") {
      CLAB_ASSIGN_OR_RETURN(const RegressionGraph model,
                            BuildLinearRegression(g, 32, 0.1, 100 + options.task_index, sync_replicas));
      std::tie(train, loss, sync) = std::tie(model.train, model.loss, model.sync);
      report = [](Session& session) -> StatusOr<std::string> {
        std::vector<Tensor> values;
        CLAB_RETURN_IF_ERROR(session.Run({}, {"w:0", "b:0"}, {}, &values));
        return StrCat("learnt w = ", values[0].data<float>()[0], ", b = ", values[1].data<float>()[0],
                      " (the data follow y = ", kRegressionSlope, "x + ", kRegressionIntercept, ")");
      };
    } else {
      CLAB_ASSIGN_OR_RETURN(const ModelSpec spec, SpecOf(options.model));
      CLAB_ASSIGN_OR_RETURN(data, LoadClassificationCsv(tools::ExampleDataPath(spec.data)));
      // Each worker's graph reads minibatches of 32 from its own shard, shuffled each epoch.
      const ops::Minibatch inputs = ClassifierInputs(
          g, TrainingDataset(tools::ExampleDataPath(spec.data), data.num_features, 32, options.task_index,
                             std::max(workers, 1), 100 + static_cast<uint64_t>(options.task_index)));
      CLAB_ASSIGN_OR_RETURN(classifier, tools::BuildClassifierOn(g, inputs.features, inputs.labels, data.num_features,
                                                                 spec.hidden, data.num_classes, spec.learning_rate,
                                                                 /*seed=*/7, spec.conv, sync_replicas));
      std::tie(train, loss, sync) = std::tie(classifier.train, classifier.loss, classifier.sync);
      report = [&](Session& session) -> StatusOr<std::string> {
        CLAB_ASSIGN_OR_RETURN(const double accuracy, Accuracy(session, classifier, data.held_out));
        return StrCat("held-out accuracy ", accuracy);
      };
    }
  }

  MonitoredTrainingSessionOptions session_options = WorkerSessionOptions(options, *server, options.max_seconds);
  CLAB_ASSIGN_OR_RETURN(auto logging, LoggingTensorHook::Create({{"loss", loss.name()}}, 100, 0));
  session_options.hooks.push_back(logging);
  if (sync) {
    CLAB_ASSIGN_OR_RETURN(auto sync_hook, sync->MakeSessionRunHook(session_options.is_chief));
    session_options.hooks.push_back(sync_hook);
  }
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<MonitoredSession> session, MonitoredTrainingSession(g, session_options));

  std::vector<Tensor> outputs;
  int64_t runs = 0;
  while (!session->should_stop()) {
    Status s = session->Run({train.node(), loss.name()}, {}, &outputs);
    if (absl::IsOutOfRange(s)) break;  // synchronous replicas: the chief has finished
    CLAB_RETURN_IF_ERROR(s);
    ++runs;
  }
  CLAB_ASSIGN_OR_RETURN(const std::string learnt, report(*session->raw_session()));
  CLAB_RETURN_IF_ERROR(session->Close());
  out << "Worker " << options.task_index << " ran " << runs << " steps; " << learnt << std::endl;
  return server->Stop();
}

}  // namespace clab::examples
